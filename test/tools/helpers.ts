// Shared test fixtures for the workspace tools: a real temp workspace, a tool context, a read ledger and a
// tiny in-test background task registry (the real one arrives with the scheduler).
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BackgroundTasks, FileReadLedger, FileStamp, TaskInfo, TaskSpec } from '../../tools/adapters.js';
import type { RuntimeTool, ToolContext, ToolResult } from '../../tools/contract.js';
import { checkArguments, resultText } from '../../tools/contract.js';
import type { TaskStore } from '../../tools/ports.js';

export async function tempDir(prefix = 'murmur-tools-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Writes files (relative path -> content), creating folders. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [file, content] of Object.entries(files)) {
    const abs = path.join(root, file);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

export function createLedger(): FileReadLedger {
  const stamps = new Map<string, FileStamp>();
  return { recordRead: (file, stamp) => stamps.set(file, stamp), lastRead: (file) => stamps.get(file) };
}

export function contextFor(root: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { agentId: 'agent-1', role: 'worker', cwd: root, callId: 'call-1', reads: createLedger(), ...extra };
}

/** Runs a tool the way the loop does: prepareArguments, the schema check, then the tool. */
export async function call(
  tool: RuntimeTool,
  ctx: ToolContext,
  args: unknown,
  options: { signal?: AbortSignal; onUpdate?: (text: string) => void } = {},
): Promise<ToolResult> {
  const prepared = tool.def.prepareArguments ? tool.def.prepareArguments(args) : args;
  const problem = checkArguments(tool.def, prepared);
  if (problem) return { content: [{ type: 'text', text: problem }], isError: true };
  const signal = options.signal ?? new AbortController().signal;
  return tool.impl(ctx, prepared as never, signal, (update) => options.onUpdate?.(update.text));
}

export function text(result: ToolResult): string {
  return resultText(result);
}

/** A task store whose every agent sees `tasks` (the tests have one agent). */
export function taskStoreOf(tasks: BackgroundTasks): TaskStore {
  return { viewFor: () => tasks };
}

/** A minimal background task registry: one log file per task in a temp folder. */
export class TestTasks implements BackgroundTasks {
  readonly tasks = new Map<string, { info: TaskInfo; done: Promise<void>; controller: AbortController }>();
  private next = 1;

  constructor(
    private readonly dir: string,
    private readonly owner = 'agent-1',
  ) {}

  start(spec: TaskSpec): TaskInfo {
    const taskId = `task-${this.next++}`;
    const outputPath = path.join(this.dir, taskId, 'output.log');
    mkdirSync(path.dirname(outputPath), { recursive: true });
    writeFileSync(outputPath, '');
    const info: TaskInfo = {
      taskId,
      kind: spec.kind,
      description: spec.description,
      status: 'running',
      ownerAgentId: this.owner,
      startedAt: Date.now(),
      outputPath,
    };
    if (spec.meta) info.meta = spec.meta;
    const controller = new AbortController();
    const done = spec.run({ signal: controller.signal, write: (chunk) => appendFileSync(outputPath, chunk) }).then(
      (outcome) => {
        info.status = outcome.status;
        if (outcome.result !== undefined) info.result = outcome.result;
        info.endedAt = Date.now();
      },
      (error: Error) => {
        info.status = 'failed';
        info.result = error.message;
        info.endedAt = Date.now();
      },
    );
    this.tasks.set(taskId, { info, done, controller });
    return { ...info };
  }

  list(): TaskInfo[] {
    return [...this.tasks.values()].map((task) => ({ ...task.info }));
  }

  get(taskId: string): TaskInfo | undefined {
    const task = this.tasks.get(taskId);
    return task ? { ...task.info } : undefined;
  }

  async wait(taskId: string, timeoutMs: number): Promise<TaskInfo | undefined> {
    const task = this.tasks.get(taskId);
    if (!task) return undefined;
    await Promise.race([task.done, new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
    return { ...task.info };
  }

  async tail(taskId: string, maxBytes: number): Promise<string> {
    const task = this.tasks.get(taskId);
    if (!task) return '';
    const { readFile } = await import('node:fs/promises');
    const all = await readFile(task.info.outputPath, 'utf8');
    return all.slice(-maxBytes);
  }

  stop(taskId: string): TaskInfo | undefined {
    const task = this.tasks.get(taskId);
    task?.controller.abort();
    return task ? { ...task.info } : undefined;
  }
}
