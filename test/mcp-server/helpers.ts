// Shared pieces of the `murmur mcp serve` tests: a real workspace in a temp folder, a scripted model file, and
// the real server process (package.json's bin, the bundle users run) driven by the SDK's client over stdio.
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { MURMUR_BIN, ROOT, staleBinReason } from '../murmur-bin.js';

export { ROOT };
export const MAIN = MURMUR_BIN;

/** The tests drive the built command; say how to build it rather than failing obscurely. */
export function assertBuilt(): void {
  const reason = staleBinReason();
  if (reason) throw new Error(reason);
}

/** The scripted model shared by the server tests (see README.md, "The scripted model"). */
export const SCRIPT = {
  agents: [
    {
      match: { role: 'main', prompt: '^read (\\S+)' },
      turns: [{ toolCalls: [{ name: 'read', arguments: { path: '$1' } }] }, { text: 'Read $1.' }],
    },
    // A first quick turn, then a model call that would take 20 s: long enough to be cancelled mid-run.
    {
      match: { role: 'main', prompt: '^slow' },
      turns: [
        { toolCalls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] },
        { latencyMs: 20_000, text: 'too late' },
      ],
    },
    { match: { role: 'explore' }, turns: [{ text: 'explored: $0' }] },
    {
      match: { role: 'worker', prompt: 'Summarise (\\S+)' },
      turns: [{ toolCalls: [{ name: 'read', arguments: { path: '$1' } }] }, { text: 'Summary of $1' }],
    },
    { match: { role: 'worker', prompt: 'slowly (\\S+)' }, turns: [{ latencyMs: 20_000, text: 'too late for $1' }] },
  ],
};

export interface Workspace {
  dir: string;
  script: string;
}

const made: string[] = [];

/** A temp workspace with a few text files and the scripted-model file. */
export async function makeWorkspace(files: Record<string, string> = {}): Promise<Workspace> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-mcp-serve-')));
  made.push(dir);
  const all = {
    'notes.txt': 'secret-note-7f3a\n',
    'a.txt': 'alpha\n',
    'b.txt': 'beta\n',
    'c.txt': 'gamma\n',
    ...files,
  };
  for (const [name, text] of Object.entries(all)) await writeFile(path.join(dir, name), text);
  const script = path.join(dir, 'script.json');
  await writeFile(script, JSON.stringify(SCRIPT));
  return { dir, script };
}

/** Removes the workspaces of this test file (after its servers have exited). */
export async function removeWorkspaces(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export function serveArgs(ws: Workspace, extra: readonly string[] = []): string[] {
  return [MAIN, 'mcp', 'serve', '--model', `scripted:${ws.script}`, '--cwd', ws.dir, ...extra];
}

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  pid: number;
}

export async function connect(ws: Workspace): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: serveArgs(ws),
    cwd: ws.dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'murmur-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, pid: transport.pid! };
}

export interface SavedSession {
  id: string;
  task?: string;
  status: string;
  kind: string;
  agents: { id: string; status: string }[];
}

/** The sessions the server saved under the workspace. */
export function sessions(ws: Workspace): SavedSession[] {
  const dir = path.join(ws.dir, '.murmur', 'sessions');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((id) => existsSync(path.join(dir, id, 'state.json')))
    .flatMap((id) => {
      // Through the one reader: a swarm's settled agents are in its settled log, not in state.json.
      const read = readSavedState(path.join(dir, id));
      return read.ok ? [read.state as unknown as SavedSession] : [];
    });
}

export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
