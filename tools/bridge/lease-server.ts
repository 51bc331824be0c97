// The lease endpoints of murmur-tools, in a private (0700) temp folder that also holds the murmur-tools command.
// Each agent's lease is a random token and an endpoint of its own (a Unix socket under agents/): a token is
// answered only at its own agent's endpoint — presented at another's it is refused, so a sibling's token alone
// is of no use. Revoking a lease (the agent ended, stopped or timed out) closes its endpoint, refuses the token
// at once and aborts its calls in flight. The folder's lease.sock belongs to no agent: it tells the sweeper of
// other murmur processes that this one is alive. The protocol is in protocol.ts; requests are read in
// request-reader.ts.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ShellBridgeLease } from '../adapters.js';
import { launcherScript, LAUNCHER_SOURCE } from './client-script.js';
import { EXIT, MAX_REQUEST_BYTES, type BridgeAnswer, type BridgeHandler } from './protocol.js';
import { RequestReader } from './request-reader.js';

interface Lease {
  token: string;
  handler: BridgeHandler;
  inFlight: Set<AbortController>;
  /** Its own socket: the only place its token is answered. */
  endpoint: string;
  server: Server;
  /** Settles when the endpoint listens (rejects when it cannot). */
  listening: Promise<void>;
}

export const LEASE_VARIABLE = 'MURMUR_TOOLS_LEASE';
export const ENDPOINT_VARIABLE = 'MURMUR_TOOLS_ENDPOINT';

const NOT_VALID =
  "murmur-tools: this lease is not valid (its agent has ended, or the token is wrong); murmur-tools works only inside a running agent's bash.\n";
const ANOTHER_AGENTS =
  "murmur-tools: refused: this lease belongs to another agent. A lease is answered only at its own agent's endpoint; use the MURMUR_TOOLS_LEASE of the shell you are in.\n";

function listen(server: Server, endpoint: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(endpoint, () => {
      server.off('error', reject);
      // An endpoint never keeps the process alive.
      server.unref();
      resolve();
    });
  });
}

export class LeaseServer {
  readonly dir: string;
  readonly binDir: string;
  /** The folder's own socket (no agent's endpoint): its liveness for sweepers. */
  readonly endpoint: string;
  private readonly agentsDir: string;
  private readonly server: Server;
  private readonly byToken = new Map<string, Lease>();
  private readonly byOwner = new WeakMap<object, Lease>();
  private readonly sockets = new Set<Socket>();
  private closed = false;

  private constructor(dir: string, server: Server) {
    this.dir = dir;
    this.binDir = path.join(dir, 'bin');
    this.agentsDir = path.join(dir, 'agents');
    this.endpoint = path.join(dir, 'lease.sock');
    this.server = server;
  }

  /** Makes the private folder with the command in it and listens; the server never keeps the process alive. */
  static async start(nodePath = process.execPath): Promise<LeaseServer> {
    const dir = mkdtempSync(path.join(tmpdir(), 'murmur-tools-'));
    try {
      chmodSync(dir, 0o700);
      const bin = path.join(dir, 'bin');
      const launcher = path.join(dir, 'murmur-tools.cjs');
      writeFileSync(launcher, LAUNCHER_SOURCE, { mode: 0o600 });
      mkdirSync(bin, { mode: 0o700 });
      mkdirSync(path.join(dir, 'agents'), { mode: 0o700 });
      writeFileSync(path.join(bin, 'murmur-tools'), launcherScript(nodePath, launcher), { mode: 0o700 });
      const server = createServer();
      const leases = new LeaseServer(dir, server);
      server.on('connection', (socket) => leases.serve(socket, undefined));
      await listen(server, leases.endpoint);
      return leases;
    } catch (error) {
      // A full disk, a socket path too long for the system: leave no half-made folder behind.
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * The owner's lease: the same token and endpoint until it is revoked, fresh ones after. Rejects when its
   * endpoint cannot listen (no file handle left); the next call then tries afresh.
   */
  async lease(owner: object, handler: BridgeHandler): Promise<ShellBridgeLease> {
    if (this.closed) throw new Error('the murmur-tools lease server is closed');
    let lease = this.byOwner.get(owner);
    if (!lease) {
      lease = this.open(handler);
      this.byOwner.set(owner, lease);
      this.byToken.set(lease.token, lease);
    }
    try {
      await lease.listening;
    } catch (error) {
      if (this.byOwner.get(owner) === lease) this.forget(owner, lease);
      throw error;
    }
    return {
      variables: { [LEASE_VARIABLE]: lease.token, [ENDPOINT_VARIABLE]: lease.endpoint },
      binDir: this.binDir,
    };
  }

  /** Ends the owner's lease: its endpoint closes, its token is refused from now on and its calls in flight are aborted. */
  revoke(owner: object): void {
    const lease = this.byOwner.get(owner);
    if (!lease) return;
    this.forget(owner, lease);
    for (const controller of lease.inFlight) controller.abort(new Error("the agent's murmur-tools lease has ended"));
  }

  get leaseCount(): number {
    return this.byToken.size;
  }

  /** Connections open right now (a finished command leaves none). */
  get openConnections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closing: Array<Promise<void>> = [];
    for (const lease of this.byToken.values()) {
      for (const controller of lease.inFlight) controller.abort(new Error('murmur is shutting down'));
      closing.push(closeEndpoint(lease));
    }
    this.byToken.clear();
    for (const socket of this.sockets) socket.destroy();
    closing.push(new Promise<void>((resolve) => this.server.close(() => resolve())));
    await Promise.all(closing);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private open(handler: BridgeHandler): Lease {
    const server = createServer();
    const endpoint = path.join(this.agentsDir, `${randomBytes(8).toString('hex')}.sock`);
    const lease: Lease = {
      token: randomBytes(24).toString('base64url'),
      handler,
      inFlight: new Set(),
      endpoint,
      server,
      listening: listen(server, endpoint),
    };
    server.on('connection', (socket) => this.serve(socket, lease));
    return lease;
  }

  private forget(owner: object, lease: Lease): void {
    this.byOwner.delete(owner);
    this.byToken.delete(lease.token);
    void closeEndpoint(lease);
  }

  /** Whether `token` may be used here: only the endpoint's own lease is answered. */
  private admit(token: string, own: Lease | undefined): BridgeAnswer | undefined {
    const lease = this.byToken.get(token);
    if (lease && lease === own) return undefined;
    return { exit: EXIT.noLease, stderr: lease ? ANOTHER_AGENTS : NOT_VALID };
  }

  private serve(socket: Socket, own: Lease | undefined): void {
    this.sockets.add(socket);
    const controller = new AbortController();
    const reader = new RequestReader((token) => this.admit(token, own));
    // Whether the whole request was read, and whether the answer was sent.
    let read = false;
    let replied = false;
    let discarded = 0;
    const send = (answer: BridgeAnswer) => {
      replied = true;
      reply(socket, answer);
    };
    socket.on('close', () => {
      this.sockets.delete(socket);
      // The command went away (killed, timed out) before its answer: its call is aborted.
      if (!replied) controller.abort(new Error('murmur-tools was stopped before the call finished'));
    });
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      if (read) {
        // Refused early while the client still sends: read on so it sees the answer, up to a bound.
        discarded += chunk.length;
        if (discarded > MAX_REQUEST_BYTES) socket.destroy();
        return;
      }
      const step = reader.push(chunk);
      if (step.kind === 'more') return;
      read = true;
      if (step.kind === 'refused') send(step.answer);
      else void this.answer(own!, step.argv, controller).then(send);
    });
  }

  private async answer(lease: Lease, argv: string[], controller: AbortController): Promise<BridgeAnswer> {
    // Revoked while its arguments were arriving.
    if (this.byToken.get(lease.token) !== lease) return { exit: EXIT.noLease, stderr: NOT_VALID };
    lease.inFlight.add(controller);
    try {
      return await lease.handler(argv, controller.signal);
    } catch (error) {
      return { exit: EXIT.toolError, stderr: `murmur-tools: ${(error as Error).message}\n` };
    } finally {
      lease.inFlight.delete(controller);
    }
  }
}

/** Closes a lease's endpoint (Node removes its socket file) once it listens; one that never listened has nothing to close. */
function closeEndpoint(lease: Lease): Promise<void> {
  return lease.listening.then(
    () => new Promise<void>((resolve) => lease.server.close(() => resolve())),
    () => undefined,
  );
}

function reply(socket: Socket, answer: BridgeAnswer): void {
  if (socket.destroyed) return;
  socket.end(`${JSON.stringify(answer)}\n`);
}

// One server per host process, shared by its engines: started by the first that needs it, closed (its folder
// removed) when the last lets go, and removed at exit in any case.
let shared: Promise<LeaseServer> | undefined;
let users = 0;
const removeAtExit = new Set<string>();
let exitHook = false;

/**
 * The process's server, started on first use. When it cannot start, the caller holds nothing (it must not
 * release) and the next caller tries afresh: a passing failure (a full /tmp) is not kept for the process's life.
 */
export function acquireLeaseServer(): Promise<LeaseServer> {
  users++;
  shared ??= LeaseServer.start().then((server) => {
    void sweepStaleLeaseFolders(server.dir);
    removeAtExit.add(server.dir);
    if (removeAtExit.size === 1 && !exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const dir of removeAtExit) rmSync(dir, { recursive: true, force: true });
      });
    }
    return server;
  });
  const starting = shared;
  return starting.catch((error: unknown) => {
    users = Math.max(0, users - 1);
    if (shared === starting) shared = undefined;
    throw error;
  });
}

export async function releaseLeaseServer(): Promise<void> {
  users = Math.max(0, users - 1);
  if (users > 0 || !shared) return;
  const closing = shared;
  shared = undefined;
  let server: LeaseServer;
  try {
    server = await closing;
  } catch {
    return; // it never started: nothing to close
  }
  await server.close();
  removeAtExit.delete(server.dir);
}

/** Folders younger than this are left alone: their process may still be starting its server. */
const STALE_AFTER_MS = 60_000;

function socketIsDead(endpoint: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(endpoint);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' || error.code === 'ENOENT'),
    );
  });
}

/**
 * Removes lease folders of this user whose process died without its exit hook (killed): nothing listens on
 * their socket any more. Best effort, in the background; a live server's folder always answers a connect.
 */
export async function sweepStaleLeaseFolders(own: string): Promise<void> {
  try {
    const base = tmpdir();
    const uid = process.getuid?.();
    for (const name of await readdir(base)) {
      if (!name.startsWith('murmur-tools-')) continue;
      const dir = path.join(base, name);
      if (dir === own) continue;
      const info = await stat(dir).catch(() => undefined);
      if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid) || Date.now() - info.mtimeMs < STALE_AFTER_MS)
        continue;
      if (await socketIsDead(path.join(dir, 'lease.sock'))) await rm(dir, { recursive: true, force: true });
    }
  } catch {
    // Sweeping is a courtesy: a failure changes nothing for this process.
  }
}
