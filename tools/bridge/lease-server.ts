// The lease endpoint of murmur-tools: one Unix socket per host process, in a private (0700) temp folder that
// also holds the murmur-tools command. Each agent's lease is a random token that maps to exactly one handler;
// revoking it (the agent ended, stopped or timed out) refuses the token at once and aborts its calls in flight.
// The protocol is one JSON line each way: `{lease, argv}` in, `{exit, stdout?, stderr?}` out.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ShellBridgeLease } from '../adapters.js';
import { launcherScript, LAUNCHER_SOURCE } from './client-script.js';
import { EXIT, type BridgeAnswer, type BridgeHandler } from './protocol.js';

/** Largest request accepted (arguments included). */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

interface Lease {
  token: string;
  handler: BridgeHandler;
  inFlight: Set<AbortController>;
}

export const LEASE_VARIABLE = 'MURMUR_TOOLS_LEASE';
export const ENDPOINT_VARIABLE = 'MURMUR_TOOLS_ENDPOINT';

export class LeaseServer {
  readonly dir: string;
  readonly binDir: string;
  readonly endpoint: string;
  private readonly server: Server;
  private readonly byToken = new Map<string, Lease>();
  private readonly byOwner = new WeakMap<object, Lease>();
  private readonly sockets = new Set<Socket>();
  private closed = false;

  private constructor(dir: string, server: Server) {
    this.dir = dir;
    this.binDir = path.join(dir, 'bin');
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
      writeFileSync(path.join(bin, 'murmur-tools'), launcherScript(nodePath, launcher), { mode: 0o700 });
      const server = createServer();
      const leases = new LeaseServer(dir, server);
      server.on('connection', (socket) => leases.serve(socket));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(leases.endpoint, () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.unref();
      return leases;
    } catch (error) {
      // A full disk, a socket path too long for the system: leave no half-made folder behind.
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The owner's lease: the same token until it is revoked, a fresh one after. */
  lease(owner: object, handler: BridgeHandler): ShellBridgeLease {
    if (this.closed) throw new Error('the murmur-tools lease server is closed');
    let lease = this.byOwner.get(owner);
    if (!lease) {
      lease = { token: randomBytes(24).toString('base64url'), handler, inFlight: new Set() };
      this.byOwner.set(owner, lease);
      this.byToken.set(lease.token, lease);
    }
    return { variables: { [LEASE_VARIABLE]: lease.token, [ENDPOINT_VARIABLE]: this.endpoint }, binDir: this.binDir };
  }

  /** Ends the owner's lease: its token is refused from now on and its calls in flight are aborted. */
  revoke(owner: object): void {
    const lease = this.byOwner.get(owner);
    if (!lease) return;
    this.byOwner.delete(owner);
    this.byToken.delete(lease.token);
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
    for (const lease of this.byToken.values())
      for (const controller of lease.inFlight) controller.abort(new Error('murmur is shutting down'));
    this.byToken.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.setEncoding('utf8');
    const controller = new AbortController();
    let buffered = '';
    let answered = false;
    socket.on('close', () => {
      this.sockets.delete(socket);
      // The command went away (killed, timed out): its call is aborted.
      if (!answered) controller.abort(new Error('murmur-tools was stopped before the call finished'));
    });
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      if (answered) return;
      buffered += chunk;
      if (buffered.length > MAX_REQUEST_BYTES) {
        answered = true;
        reply(socket, {
          exit: EXIT.usage,
          stderr: `murmur-tools: the request is larger than ${MAX_REQUEST_BYTES} bytes; pass smaller arguments.\n`,
        });
        return;
      }
      const end = buffered.indexOf('\n');
      if (end === -1) return;
      answered = true;
      void this.answer(buffered.slice(0, end), controller).then((answer) => reply(socket, answer));
    });
  }

  private async answer(line: string, controller: AbortController): Promise<BridgeAnswer> {
    let request: { lease?: unknown; argv?: unknown };
    try {
      request = JSON.parse(line) as typeof request;
    } catch {
      return { exit: EXIT.usage, stderr: 'murmur-tools: the request was not valid JSON.\n' };
    }
    const lease = typeof request.lease === 'string' ? this.byToken.get(request.lease) : undefined;
    if (!lease) {
      return {
        exit: EXIT.noLease,
        stderr:
          "murmur-tools: this lease is not valid (its agent has ended, or the token is wrong); murmur-tools works only inside a running agent's bash.\n",
      };
    }
    const argv = Array.isArray(request.argv) ? request.argv.filter((a): a is string => typeof a === 'string') : [];
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
