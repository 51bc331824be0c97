// Shared fixtures for the engine suites: a real temp workspace, an Engine driven by the scripted model, an
// event recorder (the shared fake clock is test/fakes/clock.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { Engine, type EngineOptions } from '../../orchestrator/engine.js';
import { EventBus, type EventOf, type EventType, type MurmurEvent } from '../../orchestrator/events.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import type { Message, ToolResultMessage, UserMessage } from '../../orchestrator/types.js';
import { userText } from '../../orchestrator/types.js';
import { MURMUR_BIN, staleBinReason } from '../murmur-bin.js';

export type { Script };

export async function tempDir(prefix = 'murmur-engine-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A fresh temp workspace for every test of the calling file, removed after it: read `workspace.dir` in a test. */
export function workspacePerTest(prefix?: string): { readonly dir: string } {
  const workspace = { dir: '' };
  beforeEach(async () => {
    workspace.dir = await tempDir(prefix);
  });
  afterEach(async () => {
    await removeDir(workspace.dir);
  });
  return workspace;
}

export function writeTree(root: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    const abs = path.join(root, file);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** Every event of a bus, in order, with helpers to pick some. */
export class EventRecorder {
  readonly events: MurmurEvent[] = [];

  constructor(bus: EventBus) {
    bus.on('*', (event) => this.events.push(event));
  }

  of<T extends EventType>(type: T, agentId?: string): EventOf<T>[] {
    return this.events.filter(
      (e): e is EventOf<T> =>
        e.type === type && (agentId === undefined || (e as { agentId?: string }).agentId === agentId),
    );
  }

  /** Index of the first event that fits. */
  indexOf(fits: (event: MurmurEvent) => boolean): number {
    return this.events.findIndex(fits);
  }
}

export interface TestEngine {
  engine: Engine;
  recorder: EventRecorder;
  model: ScriptedModel;
}

/**
 * An engine on a temp workspace with the scripted model. HOME points into the workspace so no user agent
 * definitions leak in; no session on disk unless the test asks for one.
 */
export function scriptedEngine(cwd: string, script: Script, options: Partial<EngineOptions> = {}): TestEngine {
  const model = new ScriptedModel(script);
  const bus = options.bus ?? new EventBus(options.clock ? () => options.clock!.now() : Date.now);
  const recorder = new EventRecorder(bus);
  const engine = new Engine({
    session: false,
    env: { HOME: path.join(cwd, '.home') },
    ...options,
    cwd,
    provider: model,
    bus,
  } as EngineOptions);
  return { engine, recorder, model };
}

export function textOf(message: Message): string {
  if (message.role === 'user') return userText(message);
  if (message.role === 'assistant') return message.text;
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

export function toolResults(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === 'tool');
}

export function syntheticMessages(messages: readonly Message[], kind?: string): UserMessage[] {
  return messages.filter(
    (m): m is UserMessage =>
      m.role === 'user' && m.synthetic !== undefined && (kind === undefined || m.synthetic.kind === kind),
  );
}

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 10_000,
  everyMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** package.json's bin (the bundle); npm test builds it first. */
export const CLI_PATH = MURMUR_BIN;

/** Fails with what to do when the CLI has not been built. */
export function requireBuiltCli(): void {
  const reason = staleBinReason();
  if (reason) throw new Error(reason);
}

/** The environment for a CLI child: no model keys or defaults from the machine, HOME inside the workspace. */
export function cliEnv(workspace: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/_API_KEY$|_BASE_URL$|^MURMUR_|^OLLAMA_/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, HOME: path.join(workspace, '.home'), NO_COLOR: '1', ...extra };
}

export function spawnCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): ChildProcess {
  return spawn(process.execPath, [CLI_PATH, ...args], {
    cwd: options.cwd,
    env: cliEnv(options.cwd, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Collects a child's output until it exits. */
export function finished(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export function runCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  return finished(spawnCli(args, options));
}
