// Big murmur-tools arguments: read in linear time, sent raw and whole up to the limit, refused by the launcher
// before anything is sent past it, and refused by the host as soon as a request's bytes pass it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseServer } from '../../tools/bridge/lease-server.js';
import { MAX_REQUEST_BYTES, tooLargeMessage, type BridgeAnswer } from '../../tools/bridge/protocol.js';
import { RequestReader } from '../../tools/bridge/request-reader.js';

let server: LeaseServer;
let dir: string;

beforeAll(async () => {
  server = await LeaseServer.start();
  dir = mkdtempSync(path.join(tmpdir(), 'murmur-bridge-limits-'));
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Runs the murmur-tools command with `input` on its stdin. */
function runTools(
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(server.binDir, 'murmur-tools'), args, { env: { PATH: '/usr/bin:/bin', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.on('error', () => {}); // a launcher that refused at once has closed its stdin
    child.stdin.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A handler that reports the --args it received by length and hash. */
async function measuringLease(owner: object) {
  return server.lease(owner, async (argv) => {
    const args = argv[argv.indexOf('--args') + 1] ?? '';
    return { exit: 0, stdout: `${args.length} ${sha(args)}\n` };
  });
}

describe('big arguments', () => {
  it('reads a request in one pass over its bytes however it is chunked, multi-byte characters included', () => {
    const args = JSON.stringify({ text: 'é€😀 abc '.repeat(40_000) });
    const body = Buffer.from(args);
    const header = Buffer.from(
      `${JSON.stringify({ lease: 't', argv: ['call', 'x', '--args', ''], attached: [[3, body.length]] })}\n`,
    );
    const bytes = Buffer.concat([header, body]);
    const reader = new RequestReader(() => undefined);
    // 7-byte chunks: the header's line end is searched for across many chunks, characters split everywhere.
    const steps: Array<ReturnType<RequestReader['push']>> = [];
    for (let at = 0; at < bytes.length; at += 7) steps.push(reader.push(bytes.subarray(at, at + 7)));
    expect(steps.filter((step) => step.kind !== 'more')).toEqual([
      { kind: 'request', argv: ['call', 'x', '--args', args] },
    ]);
    expect(steps.at(-1)!.kind).toBe('request');
    // Each header byte looked at once: no search from the start again as chunks arrive.
    expect(reader.scanned).toBe(header.length);
  });

  it('sends arguments just under the limit whole, from a file and from stdin', async () => {
    const owner = {};
    const lease = await measuringLease(owner);
    // Text with quotes, backslashes and a two-byte character: sent raw, it must arrive byte for byte.
    const unit = 'line of text "quoted" \\ ü\n';
    const repeats = Math.floor((MAX_REQUEST_BYTES - 4096) / (Buffer.byteLength(JSON.stringify(unit)) - 2));
    const args = JSON.stringify({ text: unit.repeat(repeats) });
    expect(Buffer.byteLength(args)).toBeGreaterThan(MAX_REQUEST_BYTES - 8192);
    expect(Buffer.byteLength(args)).toBeLessThan(MAX_REQUEST_BYTES - 1024);
    const file = path.join(dir, 'near-limit.json');
    writeFileSync(file, args);
    const expected = `${args.length} ${sha(args)}\n`;
    expect(await runTools(['call', 'x', '--args-file', file], lease.variables)).toEqual({
      code: 0,
      stdout: expected,
      stderr: '',
    });
    expect(await runTools(['call', 'x', '--args', '-'], lease.variables, args)).toEqual({
      code: 0,
      stdout: expected,
      stderr: '',
    });
    server.revoke(owner);
  });

  describe('past the limit, the launcher refuses before sending anything', () => {
    let listener: Server;
    let connections = 0;
    const endpoint = () => path.join(dir, 'counting.sock');

    beforeAll(async () => {
      // An endpoint that only counts who reaches it.
      listener = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(endpoint(), resolve));
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    });

    it('a 40 MB file: exit 2 naming its size and the limit, unread and unsent', async () => {
      const file = path.join(dir, 'forty.json');
      writeFileSync(file, '');
      truncateSync(file, 40_000_000);
      const env = { MURMUR_TOOLS_LEASE: 'some-token', MURMUR_TOOLS_ENDPOINT: endpoint() };
      const run = await runTools(['call', 'x', '--args-file', file], env);
      expect(run).toEqual({ code: 2, stdout: '', stderr: tooLargeMessage(40_000_000) });
      expect(run.stderr).toContain(`at most ${MAX_REQUEST_BYTES} bytes (2 MiB), and this one is 40000000 bytes`);
      expect(connections).toBe(0);
    });

    it('arguments on stdin one byte past the limit', async () => {
      const env = { MURMUR_TOOLS_LEASE: 'some-token', MURMUR_TOOLS_ENDPOINT: endpoint() };
      const run = await runTools(['call', 'x', '--args', '-'], env, 'x'.repeat(MAX_REQUEST_BYTES + 1));
      expect(run).toEqual({ code: 2, stdout: '', stderr: tooLargeMessage(MAX_REQUEST_BYTES + 1) });
      expect(connections).toBe(0);
    });
  });

  describe('the host refuses as bytes arrive', () => {
    /** Sends `chunks` without ever ending the connection, and resolves with the answer. */
    function send(endpointPath: string, chunks: Buffer[]): Promise<BridgeAnswer> {
      return new Promise((resolve, reject) => {
        const socket = connect(endpointPath);
        const answer: Buffer[] = [];
        socket.on('connect', () => chunks.forEach((chunk) => socket.write(chunk)));
        socket.on('data', (chunk) => answer.push(chunk));
        socket.on('end', () => {
          socket.destroy();
          resolve(JSON.parse(Buffer.concat(answer).toString('utf8')) as BridgeAnswer);
        });
        socket.on('error', reject);
      });
    }

    it('a header declaring more than the limit: refused before any of it is sent, the handler never called', async () => {
      const owner = {};
      let called = false;
      const lease = await server.lease(owner, async () => {
        called = true;
        return { exit: 0 };
      });
      const { MURMUR_TOOLS_LEASE: token, MURMUR_TOOLS_ENDPOINT: at } = lease.variables;
      const header = { lease: token, argv: ['call', 'x', '--args', ''], attached: [[3, 40_000_000]] };
      const answer = await send(at!, [Buffer.from(`${JSON.stringify(header)}\n`)]);
      expect(answer.exit).toBe(2);
      expect(answer.stderr).toMatch(/^murmur-tools: the arguments are too large: a call takes at most 2097152 bytes/);
      expect(answer.stderr).toContain('this one is 4000');
      expect(called).toBe(false);
      server.revoke(owner);
    });

    it('a header that does not end by the limit: refused once the limit is passed, without the sender ending', async () => {
      const owner = {};
      const lease = await server.lease(owner, async () => ({ exit: 0 }));
      const answer = await send(lease.variables.MURMUR_TOOLS_ENDPOINT!, [
        Buffer.from(`{"lease":"${lease.variables.MURMUR_TOOLS_LEASE}","argv":["call","x","--args","`),
        Buffer.alloc(MAX_REQUEST_BYTES + 65_536, 'x'),
      ]);
      expect(answer.exit).toBe(2);
      expect(answer.stderr).toMatch(/too large: .* this one is at least \d+ bytes/);
      server.revoke(owner);
    });
  });
});
