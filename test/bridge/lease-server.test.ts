// The lease endpoint: each token answers for exactly one agent, a revoked token is refused and its call in
// flight aborted, the folder is private, and a request is one JSON line each way.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import type { AgentRecord } from '../../orchestrator/agent-tree.js';
import { EngineShellBridge } from '../../orchestrator/shell-bridge.js';
import type { BridgeAgent } from '../../tools/bridge/agent-handler.js';
import {
  acquireLeaseServer,
  LeaseServer,
  releaseLeaseServer,
  sweepStaleLeaseFolders,
} from '../../tools/bridge/lease-server.js';
import type { BridgeAnswer } from '../../tools/bridge/protocol.js';
import { waitFor } from '../engine/helpers.js';
import { runCommand } from './helpers.js';

let server: LeaseServer;

beforeAll(async () => {
  server = await LeaseServer.start();
});

afterAll(async () => {
  await server.close();
});

/** One request as the launcher sends it, at an endpoint (the lease's own unless said otherwise). */
function ask(variables: Record<string, string>, argv: string[], endpoint?: string): Promise<BridgeAnswer> {
  const lease = variables.MURMUR_TOOLS_LEASE!;
  return new Promise((resolve, reject) => {
    const socket = connect(endpoint ?? variables.MURMUR_TOOLS_ENDPOINT!);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ lease, argv })}\n`));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(JSON.parse(answer) as BridgeAnswer));
    socket.on('error', reject);
  });
}

describe('the lease server', () => {
  it('keeps its folder private and maps each token to its own agent until revoked', async () => {
    expect(statSync(server.dir).mode & 0o777).toBe(0o700);
    const alice = {};
    const bob = {};
    const a = await server.lease(alice, async (argv) => ({ exit: 0, stdout: `alice ${argv.join(' ')}` }));
    const b = await server.lease(bob, async () => ({ exit: 0, stdout: 'bob' }));
    expect((await server.lease(alice, async () => ({ exit: 0 }))).variables).toEqual(a.variables);
    expect(a.variables.MURMUR_TOOLS_LEASE).not.toBe(b.variables.MURMUR_TOOLS_LEASE);
    expect(await ask(a.variables, ['tools'])).toEqual({ exit: 0, stdout: 'alice tools' });
    expect(await ask(b.variables, [])).toEqual({ exit: 0, stdout: 'bob' });
    // Revoked: refused at an endpoint that still answers (bob's), and alice's own endpoint is gone.
    const endpoint = a.variables.MURMUR_TOOLS_ENDPOINT!;
    server.revoke(alice);
    expect(await ask(a.variables, ['tools'], b.variables.MURMUR_TOOLS_ENDPOINT)).toMatchObject({
      exit: 4,
      stderr: expect.stringMatching(/lease is not valid/),
    });
    await waitFor("alice's endpoint to close", () => !existsSync(endpoint));
    expect((await ask(b.variables, [])).exit).toBe(0);
    const renewed = await server.lease(alice, async () => ({ exit: 0 }));
    expect(renewed.variables.MURMUR_TOOLS_LEASE).not.toBe(a.variables.MURMUR_TOOLS_LEASE);
    expect(renewed.variables.MURMUR_TOOLS_ENDPOINT).not.toBe(endpoint);
    server.revoke(alice);
    server.revoke(bob);
  });

  it("answers a token only at its own agent's endpoint: elsewhere exit 4, saying it belongs to another agent", async () => {
    const alice = {};
    const bob = {};
    const called: string[] = [];
    const a = await server.lease(alice, async () => (called.push('alice'), { exit: 0, stdout: 'alice' }));
    const b = await server.lease(bob, async () => (called.push('bob'), { exit: 0, stdout: 'bob' }));
    expect(a.variables.MURMUR_TOOLS_ENDPOINT).not.toBe(b.variables.MURMUR_TOOLS_ENDPOINT);
    expect(path.dirname(a.variables.MURMUR_TOOLS_ENDPOINT!)).toBe(path.join(server.dir, 'agents'));
    for (const elsewhere of [b.variables.MURMUR_TOOLS_ENDPOINT, server.endpoint]) {
      const answer = await ask(a.variables, ['tools'], elsewhere);
      expect(answer).toEqual({
        exit: 4,
        stderr: expect.stringMatching(/^murmur-tools: refused: this lease belongs to another agent/),
      });
    }
    // Through the command, as a sibling's shell would do it with the token alone.
    const command = path.join(server.binDir, 'murmur-tools');
    const borrowed = await runCommand(command, ['call', 'x'], {
      ...b.variables,
      MURMUR_TOOLS_LEASE: a.variables.MURMUR_TOOLS_LEASE,
      PATH: '/usr/bin:/bin',
    });
    expect(borrowed.code).toBe(4);
    expect(borrowed.stderr).toMatch(/belongs to another agent/);
    expect(called).toEqual([]);
    expect((await runCommand(command, ['tools'], { ...a.variables, PATH: '/usr/bin:/bin' })).stdout).toBe('alice');
    server.revoke(alice);
    server.revoke(bob);
  });

  it("puts a murmur-tools command on the lease's PATH that runs the host's own Node", async () => {
    const owner = {};
    const lease = await server.lease(owner, async (argv) => ({
      exit: argv[0] === 'tools' ? 0 : 2,
      stdout: `argv=${JSON.stringify(argv)}\n`,
    }));
    const command = path.join(lease.binDir, 'murmur-tools');
    expect(readFileSync(command, 'utf8')).toContain(`exec '${process.execPath}'`);
    // PATH without any node on it: the command must not depend on one.
    const run = (args: string[]) => runCommand(command, args, { ...lease.variables, PATH: '/usr/bin:/bin' });
    expect(await run(['tools', '--keyword', "it's"])).toEqual({
      code: 0,
      stdout: `argv=["tools","--keyword","it's"]\n`,
      stderr: '',
    });
    expect((await run(['call', 'x'])).code).toBe(2);
    server.revoke(owner);
  });

  it('aborts a call in flight when its lease is revoked', async () => {
    const owner = {};
    let aborted: unknown;
    let called = false;
    const lease = await server.lease(
      owner,
      (_argv, signal) =>
        new Promise((resolve) => {
          called = true;
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            resolve({ exit: 4, stderr: 'lease ended' });
          });
        }),
    );
    const pending = ask(lease.variables, ['call', 'x']);
    // In flight: the call reached its handler (not a fixed pause, which a loaded machine may outlast).
    await waitFor('the call to reach its handler', () => called);
    server.revoke(owner);
    expect(await pending).toEqual({ exit: 4, stderr: 'lease ended' });
    expect(String(aborted)).toMatch(/lease has ended/);
    await waitFor('the connection to close', () => server.openConnections === 0);
  });

  it('aborts a call in flight when its murmur-tools command is killed', async () => {
    const owner = {};
    let aborted: unknown;
    let called = false;
    const lease = await server.lease(
      owner,
      (_argv, signal) =>
        new Promise((resolve) => {
          called = true;
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            resolve({ exit: 1 });
          });
        }),
    );
    const child = spawn(path.join(lease.binDir, 'murmur-tools'), ['call', 'x'], {
      env: { ...lease.variables, PATH: '/usr/bin:/bin' },
      stdio: 'ignore',
    });
    await waitFor('the call to reach its handler', () => called);
    child.kill('SIGKILL');
    await waitFor('the call to be aborted', () => aborted !== undefined);
    expect(String(aborted)).toMatch(/stopped before the call finished/);
    server.revoke(owner);
  });

  it("sweeps the folders of dead processes, never a live server's", async () => {
    const dead = mkdtempSync(path.join(tmpdir(), 'murmur-tools-'));
    writeFileSync(path.join(dead, 'lease.sock'), '');
    const young = mkdtempSync(path.join(tmpdir(), 'murmur-tools-'));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(dead, old, old);
    utimesSync(server.dir, old, old);
    await sweepStaleLeaseFolders('/nowhere');
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(server.endpoint)).toBe(true);
    utimesSync(young, old, old);
    await sweepStaleLeaseFolders('/nowhere');
    expect(existsSync(young)).toBe(false);
  });
});

describe('the lease server when it cannot start or listen', () => {
  it('keeps no failure: the next engine starts it afresh, and the failed one holds no count', async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = path.join(tmpdir(), 'murmur-no-such-folder', 'deeper');
    try {
      await expect(acquireLeaseServer()).rejects.toThrow(/ENOENT/);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    const started = await acquireLeaseServer();
    expect(existsSync(started.endpoint)).toBe(true);
    await releaseLeaseServer();
    // Released by its one real user: closed and removed (a count left by the failed start would keep it open).
    expect(existsSync(started.dir)).toBe(false);
  });

  it('lets the engine close after a failed start, without releasing what it never held', async () => {
    const bus = new EventBus();
    const logs: MurmurEvent[] = [];
    bus.on('log', (event) => logs.push(event));
    let released = 0;
    const bridge = new EngineShellBridge(
      bus,
      { acquire: () => Promise.reject(new Error('no space left on device')), release: async () => void released++ },
      { hasTasks: () => false, isRunning: () => false },
    );
    const adapter = bridge.adapterFor({ id: 'a1' } as AgentRecord, {} as BridgeAgent);
    expect(await adapter.lease()).toBeUndefined();
    expect(logs).toMatchObject([{ level: 'warn', message: expect.stringMatching(/no space left on device/) }]);
    await expect(bridge.close()).resolves.toBeUndefined();
    expect(released).toBe(0);
  });

  it("runs the command without murmur-tools when an agent's endpoint cannot listen, and tries afresh next time", async () => {
    const own = await LeaseServer.start();
    const bus = new EventBus();
    const logs: MurmurEvent[] = [];
    bus.on('log', (event) => logs.push(event));
    const bridge = new EngineShellBridge(
      bus,
      { acquire: async () => own, release: async () => {} },
      { hasTasks: () => false, isRunning: () => false },
    );
    const adapter = bridge.adapterFor({ id: 'a1' } as AgentRecord, {} as BridgeAgent);
    // No folder to listen in (as when no file handle is left): a warning, no lease.
    rmSync(path.join(own.dir, 'agents'), { recursive: true });
    expect(await adapter.lease()).toBeUndefined();
    expect(logs).toMatchObject([
      { level: 'warn', agentId: 'a1', message: expect.stringMatching(/is not available to this command: listen /) },
    ]);
    expect(own.leaseCount).toBe(0);
    mkdirSync(path.join(own.dir, 'agents'));
    const lease = await adapter.lease();
    expect(existsSync(lease!.variables.MURMUR_TOOLS_ENDPOINT!)).toBe(true);
    await bridge.close();
    await own.close();
  });
});
