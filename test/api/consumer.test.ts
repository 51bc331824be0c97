// A real consumer: the packed tarball, installed as npm installs it (test/package/installed.ts), used by a fresh ESM
// TypeScript project (moduleResolution nodenext), type-checked with the repo's tsc and run on the scripted model;
// deep imports must fail, for tsc and for Node. A second project has no @types/node at all: the published
// declarations must not need it; it also type-checks and runs the README's run-handle, "Your own model" and testing
// examples (against a local endpoint this test starts), a run's handle with its events, the typed swarm output
// example, and the agents-in-code example (defineAgent, onToolCall, toolAccess).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../murmur-bin.js';
import { installedPackage, type InstalledPackage } from '../package/installed.js';
import { asDocumented } from './documented.js';
import { startHouseEndpoint } from './house-endpoint.js';
import { openaiText, openaiToolCalls, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { bwrapAvailable } from '../sandbox/helpers.js';

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let dir: string;
let project: string;
let pkg: InstalledPackage;
/** The library as npm installed it into the first consumer project. */
let installed: string | undefined;
const sandboxWorks = bwrapAvailable();

const PROGRAM = `import { createMurmur, MurmurOptionsError, type SwarmReport } from 'murmur-agents';
import { scriptedModel } from 'murmur-agents/testing';

const model = scriptedModel({
  agents: [{ match: { role: 'worker' }, turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] }, { text: 'checked' }] }],
});
const murmur = await createMurmur({ cwd: process.cwd(), model, sessions: false });
const report: SwarmReport = await murmur.swarm({ template: 'Check {{item}}', items: ['a.txt', 'b.txt', 'c.txt'], role: 'worker' });
await murmur.close();
model.assertComplete();
const calls = model.calls.map((call) => [call.agent.role, call.messages.length, call.tools.some((t) => t.name === 'glob')]);
let refused = '';
try {
  await createMurmur({ cwd: process.cwd(), model, permissionMode: 'never' as 'auto' });
} catch (error) {
  if (error instanceof MurmurOptionsError) refused = error.option;
}
// Agents' shells in the sandbox: the write lands in the workspace, the one outside it never reaches the host.
const sandboxModel = scriptedModel({
  agents: [{ turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo in > sandboxed.txt; echo out > ../outside-sandbox.txt' } }] }, { text: 'done' }] }],
});
let sandbox = '';
try {
  const sandboxed = await createMurmur({ cwd: process.cwd(), model: sandboxModel, sessions: false, permissionMode: 'auto', sandbox: { autoAllowBash: true } });
  const ran = await sandboxed.run('write');
  await sandboxed.close();
  const fs = await import('node:fs');
  sandbox = [ran.status, fs.readFileSync('sandboxed.txt', 'utf8').trim(), fs.existsSync('../outside-sandbox.txt')].join(' ');
} catch (error) {
  sandbox = error instanceof MurmurOptionsError ? 'refused ' + error.option : String(error);
}
let deep = '';
try {
  await import('murmur-agents/' + 'dist/orchestrator/engine.js');
} catch (error) {
  deep = (error as NodeJS.ErrnoException).code ?? String(error);
}
console.log(JSON.stringify({ status: report.status, items: report.items.map((i) => [i.item, i.outcome, i.text]), calls, refused, sandbox, deep }));
`;

/** Runs a compiled program with Node in `cwd` (no model in the environment unless given), collecting its output. */
function runNode(
  file: string,
  cwd: string,
  model = '',
  args: string[] = [],
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [file, ...args], { cwd, env: { ...process.env, MURMUR_MODEL: model } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}

/** A project folder using the installed library (and, when asked, this repo's @types/node): the first one gets the
 * library's packed tarball installed by npm, as `npm install murmur-agents` would (optional peers left out); the
 * others link to that install. */
function consumerProject(name: string, withNodeTypes: boolean): string {
  const folder = path.join(dir, name);
  const modules = path.join(folder, 'node_modules');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'package.json'),
    JSON.stringify({
      name,
      private: true,
      type: 'module',
      dependencies: { 'murmur-agents': `file:${pkg.libraryTarball}` },
    }),
  );
  if (!installed) {
    npm(folder, ['install']);
    installed = path.join(modules, 'murmur-agents');
  } else {
    mkdirSync(modules, { recursive: true });
    symlinkSync(installed, path.join(modules, 'murmur-agents'), 'dir');
  }
  if (withNodeTypes) {
    mkdirSync(path.join(modules, '@types'), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', '@types', 'node'), path.join(modules, '@types', 'node'), 'dir');
  }
  return folder;
}

/** npm in `cwd`, from the cache `npm ci` filled (no registry round trips for what it holds). */
function npm(cwd: string, args: string[]): void {
  const ran = spawnSync('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (ran.status !== 0) throw new Error(`npm ${args.join(' ')} in ${cwd} failed: ${ran.stderr}`);
}

beforeAll(async () => {
  pkg = installedPackage();
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-consumer-')));
  project = consumerProject('consumer', true);
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        types: ['node'],
        outDir: 'out',
        skipLibCheck: false,
      },
      include: ['main.ts'],
    }),
  );
  writeFileSync(path.join(project, 'main.ts'), PROGRAM);
  for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(path.join(project, name), name);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a consumer project', () => {
  it('type-checks a program on the root entry and runs a swarm of three items, the report coming back as data', () => {
    const tsc = spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    const run = spawnSync(process.execPath, [path.join(project, 'out', 'main.js')], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, MURMUR_MODEL: '' },
    });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as {
      status: string;
      items: string[][];
      calls: unknown[];
      refused: string;
      sandbox: string;
      deep: string;
    };
    expect(result.status).toBe('completed');
    expect(result.items).toEqual([
      ['a.txt', 'completed', 'checked'],
      ['b.txt', 'completed', 'checked'],
      ['c.txt', 'completed', 'checked'],
    ]);
    // Each worker's two turns, recorded: its task alone, then with the glob call and its result.
    expect(result.calls).toHaveLength(6);
    expect(result.calls.filter((call) => JSON.stringify(call) === '["worker",1,true]')).toHaveLength(3);
    expect(result.calls.filter((call) => JSON.stringify(call) === '["worker",3,true]')).toHaveLength(3);
    expect(result.refused).toBe('permissionMode');
    // Without a working bwrap (a developer's machine; never in CI) the sandboxed run is refused, naming the option.
    expect(result.sandbox).toBe(sandboxWorks ? 'completed in false' : 'refused sandbox');
    expect(result.deep).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  }, 120_000);

  it('refuses a deep import at type-check time', () => {
    writeFileSync(
      path.join(project, 'deep.ts'),
      "import { Engine } from 'murmur-agents/dist/orchestrator/engine.js';\nexport const e: unknown = Engine;\n",
    );
    writeFileSync(
      path.join(project, 'tsconfig.deep.json'),
      JSON.stringify({ extends: './tsconfig.json', include: ['deep.ts'], compilerOptions: { noEmit: true } }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', path.join(project, 'tsconfig.deep.json')], {
      encoding: 'utf8',
    });
    expect(tsc.status).not.toBe(0);
    expect(tsc.stdout).toMatch(/TS2307|TS2834|not exported|Cannot find module/);
  }, 60_000);

  it("type-checks without @types/node (skipLibCheck off) and runs, the README's own model and test included", async () => {
    const bare = consumerProject('consumer-without-node-types', false);
    writeFileSync(
      path.join(bare, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          types: [],
          outDir: 'out',
          skipLibCheck: false,
        },
        include: ['main.ts'],
      }),
    );
    writeFileSync(path.join(bare, 'own-model.ts'), asDocumented('own-model.ts'));
    writeFileSync(path.join(bare, 'scripted-test.ts'), asDocumented('scripted-test.ts'));
    // The custom tools example (readOnly, needsApproval as a function) type-checks and loads here too.
    writeFileSync(path.join(bare, 'custom-tool.ts'), asDocumented('custom-tool.ts'));
    writeFileSync(path.join(bare, 'typed-output.ts'), asDocumented('typed-output.ts'));
    // The zod example: the application brings zod (here: this repo's); the package brings the Standard Schema types.
    writeFileSync(path.join(bare, 'typed-output-zod.ts'), asDocumented('typed-output-zod.ts'));
    symlinkSync(path.join(ROOT, 'node_modules', 'zod'), path.join(bare, 'node_modules', 'zod'), 'dir');
    writeFileSync(path.join(bare, 'run-handle.ts'), asDocumented('run-handle.ts'));
    writeFileSync(path.join(bare, 'code-agents.ts'), asDocumented('code-agents.ts'));
    writeFileSync(path.join(bare, 'waiting.ts'), asDocumented('waiting.ts'));
    // The tracing example, with the SDK the application brings (here: this repo's).
    writeFileSync(path.join(bare, 'tracing.ts'), asDocumented('tracing.ts'));
    mkdirSync(path.join(bare, 'node_modules', '@opentelemetry'));
    symlinkSync(
      path.join(ROOT, 'node_modules', '@opentelemetry', 'sdk-trace-base'),
      path.join(bare, 'node_modules', '@opentelemetry', 'sdk-trace-base'),
      'dir',
    );
    // The run-handle example's model (MURMUR_MODEL): a glob, then an answer slower than its deadline.
    const slow = { latencyMs: 5_000, text: 'late' };
    const script = {
      agents: [
        { match: { role: 'main' }, turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] }, slow] },
      ],
    };
    writeFileSync(path.join(bare, 'slow-script.json'), JSON.stringify(script));
    mkdirSync(path.join(bare, 'notes'));
    for (const name of ['plan.md', 'retro.md']) writeFileSync(path.join(bare, 'notes', name), `# ${name}\n`);
    const endpoint = await startHouseEndpoint();
    writeFileSync(
      path.join(bare, 'main.ts'),
      `import { createMurmur, type RunReport } from 'murmur-agents';
import { askHouseModel } from './own-model.js';
import { testCountNotes } from './scripted-test.js';
import { closed, fixTickets } from './custom-tool.js';
import { whereConfigured } from './typed-output.js';
import { reviewFiles } from './typed-output-zod.js';
import { runWithDeadline } from './run-handle.js';
import { whereRead } from './code-agents.js';
import { runAnswering } from './waiting.js';
import { tracedBatch } from './tracing.js';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { scriptedModel } from 'murmur-agents/testing';
import { defineTool, textResult, Type } from 'murmur-agents/tools';

const shout = defineTool({
  def: { name: 'shout', description: 'Upper-cases a text', parameters: Type.Object({ text: Type.String() }) },
  execute: (_ctx, { text }) => textResult(text.toUpperCase()),
});
const model = scriptedModel({ agents: [{ match: { role: 'main' }, turns: [{ text: 'typed without node types' }] }] });
const murmur = await createMurmur({ cwd: '.', model, sessions: false, tools: [{ tool: shout, roles: ['main'] }] });
const handle = murmur.run('say it');
const events: string[] = [];
for await (const event of handle.events()) if (event.sessionId === handle.sessionId) events.push(event.type);
const report: RunReport = await handle;
await murmur.close();
const deadline = await runWithDeadline('.', 'Read every file', 200);
const finished: ReadableSpan[] = [];
// A collecting exporter (the SDK's in-memory one forgets its spans when the provider shuts down).
const exporter: SpanExporter = {
  export: (batch, done) => {
    finished.push(...batch);
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
const traced = await tracedBatch('.', ['notes/plan.md'], exporter);
const spans = [...new Set(finished.map((span) => span.name.split(' ')[0]))].sort();
await testCountNotes('.');
const house = await askHouseModel('.', ${JSON.stringify(endpoint.url)}, 'How many notes are there?');
const finder = scriptedModel({
  agents: [{ match: { prompt: 'under (\\\\S+) read' }, turns: [{ toolCalls: [{ name: 'final_answer', arguments: { files: ['$1/index.ts'], confidence: 'high' } }] }] }],
});
const typed = await whereConfigured('.', [{ name: 'db', dir: 'src/db' }], finder);
const files: string[] | undefined = typed.db;
// A zod schema's output types the rows (tsc checks the example's row.output?.comments), and zod's trim applies.
const reviewer = scriptedModel({
  agents: [{ turns: [{ toolCalls: [{ name: 'final_answer', arguments: { verdict: 'approve', comments: [{ line: 7, text: ' ok ' }] } }] }] }],
});
const reviews = await reviewFiles('.', ['notes/plan.md'], reviewer);
const verdict: string = reviews[0]!.verdict;
const lines: number[] = reviews[0]!.lines;
// The report's output is typed from the schema, without @types/node.
const answered = await createMurmur({ cwd: '.', model: scriptedModel({ agents: [{ turns: [{ toolCalls: [{ name: 'final_answer', arguments: { n: 2 } }] }] }] }), sessions: false });
const counted = await answered.run('count', { output: Type.Object({ n: Type.Integer() }) });
await answered.close();
const n: number | undefined = counted.output?.n;
// Agents in code and onToolCall: the finder answers typed; the hook refuses the main agent's read of .env.
const agents = scriptedModel({
  agents: [
    { match: { role: 'finder' }, turns: [{ toolCalls: [{ name: 'final_answer', arguments: { file: 'notes/plan.md', line: 1 } }] }] },
    { match: { role: 'main' }, turns: [{ toolCalls: [{ name: 'read', arguments: { path: '.env' } }] }, { text: 'no default' }] },
  ],
});
const where = await whereRead('.', 'PORT', agents);
const line: number | undefined = where.location?.line;
// A run that waits for the write manual mode asks for, answered from code: the write runs once.
const writer = scriptedModel({
  agents: [{ match: { role: 'main' }, turns: [{ toolCalls: [{ name: 'write', arguments: { path: 'notes/new.md', content: 'x' } }] }, { text: 'written' }] }],
});
const waited = await runAnswering({ cwd: '.', model: writer }, 'write a note', () => true);
console.log(JSON.stringify({ zod: [verdict, lines], waited: [waited.status, waited.result, waited.asked.length], status: report.status, result: report.result, house, files, n, tickets: [typeof fixTickets, closed.length], events: [events[0], events.at(-1)], deadline: [deadline.status, deadline.reason, deadline.saved], where: [where.location?.file, line, where.summary, where.calls], traced: [traced.kind, spans] }));
`,
    );
    try {
      const tsc = spawnSync(process.execPath, [TSC, '-p', bare], { encoding: 'utf8' });
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
      // Run without blocking this process: the endpoint the program calls lives here.
      const run = await runNode(path.join(bare, 'out', 'main.js'), bare, 'scripted:slow-script.json');
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({
        status: 'completed',
        result: 'typed without node types',
        house: '2 notes.',
        files: ['src/db/index.ts'],
        n: 2,
        tickets: ['function', 0],
        events: ['run.start', 'run.end'],
        deadline: ['aborted', 'no answer within 200 ms', 'aborted'],
        // The example's swarm on this project's scripted model (no worker is scripted): its spans still reach the exporter.
        traced: ['swarm', ['chat', 'invoke_agent', 'murmur.run', 'murmur.swarm', 'murmur.swarm.item']],
        where: ['notes/plan.md', 1, 'no default', ['finder: final_answer', 'main: read']],
        waited: ['completed', 'written', 1],
        zod: ['approve', [7]],
      });
      expect(endpoint.requests).toHaveLength(2);
    } finally {
      await endpoint.close();
    }
  }, 120_000);
});

/** Bytes and packages under `modules` (symlinks not followed: what npm installed, not what a test linked). */
function installedSize(modules: string): { bytes: number; packages: string[] } {
  let bytes = 0;
  const packages: string[] = [];
  const walk = (folder: string, depth: number) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(full, depth + 1);
      else bytes += statSync(full).size;
    }
  };
  walk(modules, 0);
  const list = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const full = path.join(folder, entry.name);
      if (entry.name.startsWith('@')) {
        list(full);
        continue;
      }
      packages.push(path.relative(modules, full));
      const nested = path.join(full, 'node_modules');
      if (existsSync(nested)) list(nested);
    }
  };
  list(modules);
  return { bytes, packages };
}

// An application that uses MCP and the OpenAI provider: the SDKs are its to install (optional peers).
const PEERS_PROGRAM = `import { createMurmur } from 'murmur-agents';
import { scriptedModel } from 'murmur-agents/testing';
const [mode, baseUrl, serverBin] = process.argv.slice(2);
const mcpServers = { everything: { command: process.execPath, args: [serverBin, 'stdio'] } };
const model =
  mode === 'scripted'
    ? scriptedModel({ agents: [{ turns: [{ toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'over MCP' } }] }, { text: 'done' }] }] })
    : 'openai:gpt-test';
const murmur = await createMurmur({ cwd: process.cwd(), model, baseUrl, env: { ...process.env, OPENAI_API_KEY: 'test-key' }, permissionMode: 'yolo', sessions: false, mcpServers });
const tools = [];
const warnings = [];
murmur.on('log', (event) => event.level === 'warn' && warnings.push(event.message));
murmur.on('tool.end', (event) => tools.push(event.tool + ': ' + (event.isError ? 'error ' + event.error : 'ok')));
const report = await murmur.run('echo it');
await murmur.close();
console.log(JSON.stringify({ status: report.status, result: report.result, reason: report.reason, tools, warnings }));
`;

describe('the library installed alone', () => {
  let app: string;
  beforeAll(() => {
    app = path.join(dir, 'app');
    mkdirSync(app);
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: {} }),
    );
    npm(app, ['install', pkg.libraryTarball]);
    writeFileSync(path.join(app, 'peers.mjs'), PEERS_PROGRAM);
  }, 120_000);

  it('weighs at most 60 MB and 60 packages: no command line, no OpenTelemetry SDK, no optional peer', () => {
    const { bytes, packages } = installedSize(path.join(app, 'node_modules'));
    // Printed for the benchmarks' record (README "Install"): the figures a user's `npm i murmur-agents` gets.
    console.log(`murmur-agents alone: ${(bytes / 1e6).toFixed(1)} MB, ${packages.length} packages`);
    expect(bytes).toBeLessThanOrEqual(60e6);
    expect(packages.length).toBeLessThanOrEqual(60);
    for (const absent of [
      '@murmur-agents/cli',
      'blessed',
      'hono',
      'bullmq',
      'ioredis',
      'openai',
      '@anthropic-ai/sdk',
      '@modelcontextprotocol/sdk',
      '@opentelemetry/sdk-trace-base',
    ])
      expect(packages, absent).not.toContain(absent);
  });

  it('names the package to install when a feature needs a missing peer; with MCP and OpenAI added, an MCP run works', async () => {
    const server = await startFakeOpenAIServer();
    try {
      const everything = path.join(
        ROOT,
        'node_modules',
        '@modelcontextprotocol',
        'server-everything',
        'dist',
        'index.js',
      );
      const scripted = await runNode(path.join(app, 'peers.mjs'), app, '', ['scripted', server.baseURL, everything]);
      expect(scripted.stderr).toBe('');
      expect(JSON.parse(scripted.stdout).warnings).toContain(
        'MCP server everything: could not be started: the package @modelcontextprotocol/sdk is not installed (it is needed for MCP servers): npm install @modelcontextprotocol/sdk',
      );
      const provider = await runNode(path.join(app, 'peers.mjs'), app, '', ['openai', server.baseURL, everything]);
      expect(JSON.parse(provider.stdout)).toMatchObject({ status: 'failed' });
      expect(JSON.parse(provider.stdout).reason).toContain(
        'the package openai is not installed (it is needed for the provider openai:gpt-test): npm install openai',
      );
      expect(server.requests).toHaveLength(0);

      npm(app, ['install', '@modelcontextprotocol/sdk@1.32.2', 'openai@6.49.0']);
      server.enqueue(
        openaiToolCalls([{ name: 'mcp__everything__echo', arguments: ['{"message":', '"over MCP"}'] }]),
        openaiText('echoed over MCP'),
      );
      const ran = await runNode(path.join(app, 'peers.mjs'), app, '', ['openai', server.baseURL, everything]);
      expect(ran.stderr).toBe('');
      expect(JSON.parse(ran.stdout)).toEqual({
        status: 'completed',
        result: 'echoed over MCP',
        tools: ['mcp__everything__echo: ok'],
        warnings: [],
      });
      expect(JSON.stringify(server.requests[1]!.body)).toContain('Echo: over MCP');
    } finally {
      await server.close();
    }
  }, 120_000);
});
