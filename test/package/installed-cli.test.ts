// The installed `murmur` as a user runs it (see installed.ts): the version, the demo, MCP servers from .mcp.json
// in a run (inline and deferred behind tool_search) and in a swarm whose workers call them through murmur-tools,
// `murmur mcp serve` driven by the SDK's client, `report --html`, per-command help and a closed pipe. The MCP
// servers are this checkout's devDependencies, named by absolute path in .mcp.json, as a user names any server.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE, ROOT } from '../murmur-bin.js';
import { installedPackage, userEnv, type InstalledPackage } from './installed.js';

const EVERYTHING = path.join(ROOT, 'node_modules', '.bin', 'mcp-server-everything');
const FILESYSTEM = path.join(ROOT, 'node_modules', '.bin', 'mcp-server-filesystem');

let pkg: InstalledPackage;
let ws: string;
let home: string;

beforeAll(() => {
  pkg = installedPackage();
  ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'murmur-installed-ws-')));
  home = realpathSync(mkdtempSync(path.join(tmpdir(), 'murmur-installed-home-')));
}, 200_000);

afterAll(() => {
  for (const dir of [ws, home]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh workspace for one test, removed after it. */
function tempWorkspace(name: string): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), `murmur-installed-${name}-`)));
  scratch.push(dir);
  return dir;
}

/** `murmur ARGS` found on PATH, as a shell finds it. */
function murmur(args: string[], options: { cwd?: string; env?: Record<string, string>; timeout?: number } = {}) {
  return execa('murmur', args, {
    cwd: options.cwd ?? ws,
    env: userEnv(pkg, home, options.env),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: options.timeout ?? 60_000,
  });
}

function mcpJson(dir: string): void {
  writeFileSync(
    path.join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: { everything: { command: EVERYTHING, args: ['stdio'] }, fs: { command: FILESYSTEM, args: [dir] } },
    }),
  );
}

function script(dir: string, body: unknown): string {
  const file = path.join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(body));
  return file;
}

function transcriptOf(dir: string, sessionId: string, agentId: string): string {
  return readFileSync(path.join(dir, '.murmur', 'sessions', sessionId, 'agents', agentId, 'transcript.jsonl'), 'utf8');
}

describe('the installed package', () => {
  it('is the command on PATH, from the prefix alone, with the version of package.json', async () => {
    const which = await execa('sh', ['-c', 'command -v murmur'], { env: userEnv(pkg, home), extendEnv: false });
    expect(which.stdout).toBe(path.join(pkg.prefix, 'bin', 'murmur'));
    const ran = await murmur(['--version']);
    expect(ran.exitCode).toBe(0);
    expect(ran.stdout).toBe(PACKAGE.version);
  });

  it('ships a LICENSE, source maps of the bundle only (without sources); library ≤ 0.9 MB, command ≤ 0.35 MB', () => {
    expect(readFileSync(path.join(pkg.dir, 'LICENSE'), 'utf8')).toContain('MIT License');
    expect(readFileSync(path.join(pkg.libraryDir, 'LICENSE'), 'utf8')).toContain('MIT License');
    // One package held both at 1.07 MB. Split (each with the README), the library packs to 0.83 MB and the command
    // to 0.29 MB: the command imports the library's modules instead of a copy.
    expect(pkg.libraryBytes).toBeLessThan(900_000);
    expect(pkg.commandBytes).toBeLessThan(350_000);
    const maps: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules') continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.map')) maps.push(path.relative(pkg.dir, full));
      }
    };
    walk(pkg.dir);
    expect(maps.length).toBeGreaterThan(0);
    expect(maps.filter((map) => !map.startsWith('dist/bundle/'))).toEqual([]);
    const map = JSON.parse(readFileSync(path.join(pkg.dir, maps[0]!), 'utf8')) as { sourcesContent?: unknown };
    expect(map.sourcesContent).toBeUndefined();
  });

  it('runs the demo', async () => {
    const ran = await murmur(['demo', '--no-dashboard', '--json'], { timeout: 90_000 });
    // --json keeps stderr quiet but for what murmur cannot contain: the demo's verifiers run without a sandbox.
    expect(ran.stderr).toMatch(/^murmur: warn: verifiers' shells are not confined [^\n]*\n?$/);
    expect(JSON.parse(ran.stdout)).toMatchObject({ summary: { completed: 12 } });
    expect(ran.exitCode).toBe(0);
  }, 100_000);

  it('answers --help for a command, and exits quietly when its reader closes the pipe early', async () => {
    const help = await murmur(['swarm', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('--template');
    // The reader (`true`) is gone before murmur writes a byte: every write meets a closed pipe (EPIPE). murmur
    // must stop quietly with status 0, as `murmur … | head` needs, never print a trace.
    for (const args of ['--help', 'swarm --help', '--version', 'sessions', 'schedule list']) {
      const piped = await execa('bash', ['-c', `set -o pipefail; murmur ${args} | true`], {
        cwd: ws,
        env: userEnv(pkg, home),
        extendEnv: false,
        reject: false,
      });
      expect({ args, stderr: piped.stderr, code: piped.exitCode }).toEqual({ args, stderr: '', code: 0 });
    }
  });

  it('gives a run the tools of the servers in .mcp.json: a worker calls one inline', async () => {
    const dir = tempWorkspace('mcp');
    mcpJson(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'the notes\n');
    script(dir, {
      agents: [
        {
          match: { role: 'worker' },
          turns: [
            {
              toolCalls: [
                { name: 'mcp__everything__echo', arguments: { message: 'hello from the installed bin' } },
                { name: 'mcp__fs__read_text_file', arguments: { path: path.join(dir, 'notes.txt') } },
              ],
            },
            { text: 'used both servers' },
          ],
        },
      ],
    });
    const ran = await murmur(
      [
        'run',
        '--agent',
        'worker',
        '--model',
        'scripted:script.json',
        '--permission-mode',
        'auto',
        '--json',
        'use the servers',
      ],
      { cwd: dir },
    );
    expect(ran.stderr).toBe('');
    const report = JSON.parse(ran.stdout) as { status: string; result: string; sessionId: string };
    expect(report).toMatchObject({ status: 'completed', result: 'used both servers' });
    const transcript = transcriptOf(dir, report.sessionId, 'main');
    expect(transcript).toContain('Echo: hello from the installed bin');
    expect(transcript).toContain('the notes');
    expect(transcript).not.toContain('internal error');
  }, 60_000);

  it('finds a deferred MCP tool with tool_search and calls it through mcp_invoke', async () => {
    const dir = tempWorkspace('defer');
    mcpJson(dir);
    writeFileSync(path.join(dir, 'plan.md'), '# The plan\nShip it.\n');
    writeFileSync(path.join(dir, 'murmur.toml'), '[mcp.disclosure]\nmodels = ["scripted:*"]\n');
    script(dir, {
      capabilities: { contextWindow: 4000 },
      agents: [
        {
          match: { role: 'worker' },
          turns: [
            { toolCalls: [{ name: 'tool_search', arguments: { query: 'read the text of a file', limit: 3 } }] },
            {
              toolCalls: [
                {
                  name: 'mcp_invoke',
                  arguments: { name: 'mcp__fs__read_text_file', arguments: { path: path.join(dir, 'plan.md') } },
                },
              ],
            },
            { text: 'found and read it' },
          ],
        },
      ],
    });
    const ran = await murmur(
      [
        'run',
        '--agent',
        'worker',
        '--model',
        'scripted:script.json',
        '--permission-mode',
        'yolo',
        '--json',
        'read the plan',
      ],
      { cwd: dir },
    );
    expect(ran.stderr).toBe('');
    const report = JSON.parse(ran.stdout) as { status: string; sessionId: string };
    expect(report.status).toBe('completed');
    const transcript = transcriptOf(dir, report.sessionId, 'main');
    expect(transcript).toContain('mcp__fs__read_text_file');
    expect(transcript).toContain('Ship it.');
  }, 60_000);

  it('runs a swarm whose workers call an MCP tool through murmur-tools in bash', async () => {
    const dir = tempWorkspace('swarm');
    mcpJson(dir);
    script(dir, {
      agents: [
        {
          match: { role: 'worker', prompt: 'Echo (\\S+)' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'bash',
                  arguments: {
                    command: `murmur-tools call mcp__everything__echo --args '{"message":"$1"}' > $1.out; echo "exit=$?"`,
                  },
                },
              ],
            },
            { text: 'echoed $1' },
          ],
        },
      ],
    });
    const ran = await murmur(
      [
        'swarm',
        '--template',
        'Echo {{item}}',
        '--items',
        'alpha',
        'beta',
        'gamma',
        '--model',
        'scripted:script.json',
        '--permission-mode',
        'yolo',
        '--json',
      ],
      { cwd: dir },
    );
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toMatchObject({ summary: { completed: 3 } });
    for (const item of ['alpha', 'beta', 'gamma'])
      expect(readFileSync(path.join(dir, `${item}.out`), 'utf8')).toContain(`Echo: ${item}`);
  }, 60_000);

  it("serves run_agent over MCP to the SDK client, whose agents use the workspace's MCP servers", async () => {
    const dir = tempWorkspace('serve');
    const client = new Client({ name: 'installed-test', version: '1.0.0' });
    try {
      mcpJson(dir);
      writeFileSync(path.join(dir, 'murmur.toml'), '[permissions]\nallow = ["mcp__everything__get-sum"]\n');
      script(dir, {
        agents: [
          {
            match: { role: 'worker' },
            turns: [
              { toolCalls: [{ name: 'mcp__everything__get-sum', arguments: { a: 2, b: 3 } }] },
              { text: 'summed' },
            ],
          },
        ],
      });
      const env = userEnv(pkg, home);
      await client.connect(
        new StdioClientTransport({
          command: 'murmur',
          args: ['mcp', 'serve', '--model', `scripted:${path.join(dir, 'script.json')}`, '--cwd', dir],
          env,
          cwd: dir,
          stderr: 'pipe',
        }),
      );
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['run_agent', 'run_swarm']));
      const result = (await client.callTool({
        name: 'run_agent',
        arguments: { task: 'add two and three', role: 'worker' },
      })) as { content: { type: string; text: string }[]; isError?: boolean };
      expect(result.isError ?? false).toBe(false);
      expect(result.content.map((c) => c.text).join('\n')).toContain('summed');
      const sessions = readdirSync(path.join(dir, '.murmur', 'sessions'));
      const transcripts = sessions.flatMap((id) =>
        readdirSync(path.join(dir, '.murmur', 'sessions', id, 'agents')).map((agent) => transcriptOf(dir, id, agent)),
      );
      expect(transcripts.join('\n')).toContain('The sum of 2 and 3 is 5');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('writes a session report as one HTML file', async () => {
    const dir = tempWorkspace('report');
    script(dir, { agents: [{ match: { role: 'worker' }, turns: [{ text: 'did $0' }] }] });
    const ran = await murmur(
      ['swarm', '--template', 'Do {{item}}', '--items', 'one', 'two', '--model', 'scripted:script.json', '--json'],
      { cwd: dir },
    );
    const { sessionId } = JSON.parse(ran.stdout) as { sessionId: string };
    const out = path.join(dir, 'report.html');
    const report = await murmur(['report', sessionId, '--html', '-o', out], { cwd: dir });
    expect(report.stderr).toBe('');
    expect(report.exitCode).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(sessionId);
  }, 60_000);
});
