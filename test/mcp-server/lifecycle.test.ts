// The server process itself: stdout carries nothing but the protocol, closing stdin aborts the runs in flight
// and ends the process, and a bad model or flag is a clear message and exit 2 before anything is served.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, removeWorkspaces, MAIN, makeWorkspace, serveArgs, sessions, waitFor } from './helpers.js';

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[], cwd: string): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('murmur mcp serve, the process', () => {
  afterAll(removeWorkspaces);

  it('writes only JSON-RPC on stdout; closing stdin aborts the run in flight, saves it and exits 0', async () => {
    assertBuilt();
    const ws = await makeWorkspace();
    const child = spawn(process.execPath, serveArgs(ws), { cwd: ws.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    send({
      id: 2,
      method: 'tools/call',
      params: { name: 'run_agent', arguments: { task: 'read notes.txt' }, _meta: { progressToken: 'p-2' } },
    });
    send({
      id: 3,
      method: 'tools/call',
      params: {
        name: 'run_swarm',
        arguments: { template: 'slowly {{item}}', items: ['a.txt', 'b.txt'] },
        _meta: { progressToken: 'p-3' },
      },
    });
    const lines = () => stdout.split('\n').filter(Boolean);
    await waitFor('the answer to run_agent', () => (lines().some((l) => l.includes('"id":2')) ? true : undefined));
    await waitFor('the swarm to start', () =>
      lines().filter((l) => l.includes('"p-3"')).length >= 2 ? true : undefined,
    );

    // The client goes away mid-swarm: the server aborts it, closes its engine and exits by itself.
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/aborting 1 run\(s\)/);
    expect(stderr).toMatch(/run_swarm #2 ended aborted/);

    const messages = lines().map(
      (l) =>
        JSON.parse(l) as { jsonrpc: string; id?: number; method?: string; result?: { content: { text: string }[] } },
    );
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.find((m) => m.id === 2)!.result!.content[0]!.text).toBe('Read notes.txt.');
    expect(messages.some((m) => m.id === 3)).toBe(false);
    expect(messages.filter((m) => m.method === 'notifications/progress').length).toBeGreaterThanOrEqual(5);

    const swarm = await waitFor('the swarm session', () => sessions(ws).find((s) => s.kind === 'swarm'));
    expect(swarm.agents.map((a) => a.status)).toEqual(['aborted', 'aborted']);
  });

  it('a bad model, workspace, flag or subcommand: a message on stderr, nothing on stdout, exit 2', async () => {
    assertBuilt();
    const ws = await makeWorkspace();
    const [missingScript, badSpec, badCwd, badFlag, badSub] = await Promise.all([
      run([MAIN, 'mcp', 'serve', '--model', `scripted:${ws.dir}/no-such-script.json`, '--cwd', ws.dir], ws.dir),
      run([MAIN, 'mcp', 'serve', '--model', 'nonsense', '--cwd', ws.dir], ws.dir),
      run([MAIN, 'mcp', 'serve', '--model', `scripted:${ws.script}`, '--cwd', `${ws.dir}/missing`], ws.dir),
      run([MAIN, 'mcp', 'serve', '--model', `scripted:${ws.script}`, '--dashboard'], ws.dir),
      run([MAIN, 'mcp', 'listen'], ws.dir),
    ]);
    for (const r of [missingScript, badSpec, badCwd, badFlag, badSub]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(missingScript.stderr).toContain(`cannot read the scripted-model file ${ws.dir}/no-such-script.json: ENOENT`);
    expect(badSpec.stderr).toMatch(/nonsense/);
    expect(badSpec.stderr).toMatch(/openai:MODEL/);
    expect(badCwd.stderr).toContain(`--cwd "${ws.dir}/missing" is not a folder`);
    expect(badFlag.stderr).toContain('murmur mcp serve: unknown flag --dashboard. See murmur mcp serve --help.');
    expect(badSub.stderr).toContain('unknown subcommand "listen"; the only one is "serve"');
  });
});
