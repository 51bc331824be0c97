// Shared fixtures for the swarm suites: a real temp workspace, a real Engine on the scripted model with the
// agent_swarm tool wired as the command line wires it, event capture, and small git helpers.
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Engine, type EngineOptions } from '../../orchestrator/engine.js';
import { SessionStore, stateHome } from '../../orchestrator/session.js';
import type { MurmurConfig } from '../../orchestrator/config.js';
import type { MurmurEvent } from '../../orchestrator/events.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import type { AgentRecord } from '../../orchestrator/agent-tree.js';
import type { Message, ToolResultMessage } from '../../orchestrator/types.js';
import { builtinProfile } from '../../roles/profile.js';
import { swarmAdapterFor } from '../../host/swarm-adapter.js';
import type { SwarmRequest } from '../../tools/adapters.js';
import { agentSwarmTool } from '../../tools/agents/agent-swarm.js';
import { MURMUR_BIN } from '../murmur-bin.js';
import { WorktreeIsolation } from '../../swarm/worktree.js';

export async function tempDir(prefix = 'murmur-swarm-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export function writeTree(root: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    const abs = path.join(root, file);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** Fast defaults: a provider that does not retry on its own, so a 429 reaches the swarm at once. */
export const FAST_CONFIG: MurmurConfig = { retry: { maxAttempts: 1 } };

export interface TestEngine {
  engine: Engine;
  events: MurmurEvent[];
  env: NodeJS.ProcessEnv;
  /** A main agent that is never run: the parent of adapter-driven swarms. */
  parent(): AgentRecord;
  /** Runs a swarm the way the agent_swarm tool does, for `parent()`. */
  swarm(request: SwarmRequest, signal?: AbortSignal): ReturnType<ReturnType<typeof swarmAdapterFor>['run']>;
  close(): Promise<void>;
}

export function makeEngine(
  cwd: string,
  script: Script,
  options: { config?: MurmurConfig; env?: NodeJS.ProcessEnv; extra?: Partial<EngineOptions> } = {},
): TestEngine {
  const env = options.env ?? {};
  const engine = new Engine({
    cwd,
    provider: new ScriptedModel(script),
    config: { ...FAST_CONFIG, ...options.config },
    env,
    definitions: new Map(),
    swarmTool: agentSwarmTool,
    swarmFor: (e, record) => swarmAdapterFor(e, record, { env }),
    session: SessionStore.create(stateHome(realpathSync(cwd), env)),
    ...options.extra,
  });
  const events: MurmurEvent[] = [];
  engine.bus.on('*', (event) => events.push(event));
  let main: AgentRecord | undefined;
  const parent = () => {
    if (!main) {
      const spawned = engine.agentTree.spawn({ profile: builtinProfile('main'), description: 'main' });
      if (!spawned.ok) throw new Error(spawned.error);
      main = spawned.record;
    }
    return main;
  };
  return {
    engine,
    events,
    env,
    parent,
    swarm: (request, signal = new AbortController().signal) =>
      swarmAdapterFor(engine, parent(), { env }).run(request, signal, () => undefined),
    close: () => engine.close(),
  };
}

export function eventsOf<T extends MurmurEvent['type']>(
  events: readonly MurmurEvent[],
  type: T,
): Extract<MurmurEvent, { type: T }>[] {
  return events.filter((e): e is Extract<MurmurEvent, { type: T }> => e.type === type);
}

/** The tool results in a conversation, in order. */
export function toolResults(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === 'tool');
}

export function resultText(message: ToolResultMessage): string {
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
}

/** A git repository with one commit holding `files`. */
/** Commits everything in `cwd` as a test user (no signing, no hooks of the machine's config). */
export function commitAll(cwd: string, message: string, user = 'test'): void {
  git(cwd, 'add', '-A');
  git(
    cwd,
    '-c',
    `user.name=${user}`,
    '-c',
    `user.email=${user}@localhost`,
    '-c',
    'commit.gpgsign=false',
    'commit',
    '-qm',
    message,
  );
}

export function gitRepo(cwd: string, files: Record<string, string>): void {
  writeTree(cwd, files);
  git(cwd, 'init', '-q', '-b', 'main');
  commitAll(cwd, 'initial');
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function waitFor<T>(check: () => T | undefined, timeoutMs = 10_000, what = 'a condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The events of an --events file written so far (a line still being written is skipped). */
export function readEvents(file: string): MurmurEvent[] {
  if (!existsSync(file)) return [];
  const events: MurmurEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      if (line) events.push(JSON.parse(line) as MurmurEvent);
    } catch {
      // cut mid-write
    }
  }
  return events;
}

/** This process's environment without its MURMUR_* variables, with HOME at `home`, plus `extra`. */
export function binEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MURMUR_')) env[k] = v;
  return { ...env, HOME: home, ...extra };
}

/** package.json's bin in `dir` (HOME there too), never rejecting: the exit code and output are the result. */
export function murmurIn(dir: string, args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [MURMUR_BIN, ...args], {
    reject: false,
    cwd: dir,
    env: binEnv(dir, env),
    extendEnv: false,
    stdin: 'ignore',
  });
}

/** Worktree isolation for swarm `s-1` of session `x` in the repository at `dir` (state under `dir/.murmur`). */
export async function openIsolation(dir: string): Promise<WorktreeIsolation> {
  const opened = await WorktreeIsolation.open(
    dir,
    path.join(dir, '.murmur', 'sessions', 'x'),
    's-1',
    path.join(dir, '.murmur'),
    'x',
  );
  if (typeof opened === 'string') throw new Error(opened);
  return opened;
}
