// Test helpers: a tool context and a tiny in-memory BackgroundTasks (the real registry lives in the engine).
import type { BackgroundTasks, TaskInfo, TaskSpec } from '../../tools/adapters.js';
import type { QuestionReply, QuestionRequest, UserChannel } from '../../tools/adapters-interaction.js';
import type { ToolContext } from '../../tools/contract.js';
import type { TaskStore } from '../../tools/ports.js';

/** A task store whose every agent sees `tasks` (the tests have one agent). */
export function storeOf(tasks: BackgroundTasks): TaskStore {
  return { viewFor: () => tasks };
}

export function makeContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return { agentId: 'agent-1', role: 'worker', cwd: process.cwd(), callId: 'call-1', ...overrides };
}

export class MemoryTasks implements BackgroundTasks {
  readonly infos = new Map<string, TaskInfo>();
  readonly logs = new Map<string, string>();
  private readonly done = new Map<string, Promise<void>>();
  private readonly controllers = new Map<string, AbortController>();
  private next = 1;

  constructor(private readonly owner = 'agent-1') {}

  start(spec: TaskSpec): TaskInfo {
    const taskId = `task-${this.next++}`;
    const info: TaskInfo = {
      taskId,
      kind: spec.kind,
      description: spec.description,
      status: 'running',
      ownerAgentId: this.owner,
      startedAt: Date.now(),
      outputPath: `/dev/null/${taskId}`,
    };
    if (spec.meta) info.meta = spec.meta;
    const controller = new AbortController();
    this.infos.set(taskId, info);
    this.logs.set(taskId, '');
    this.controllers.set(taskId, controller);
    const write = (chunk: string) => this.logs.set(taskId, this.logs.get(taskId)! + chunk);
    this.done.set(
      taskId,
      spec.run({ signal: controller.signal, write }).then(
        (outcome) => {
          info.status = outcome.status;
          if (outcome.result !== undefined) info.result = outcome.result;
          info.endedAt = Date.now();
        },
        (error: Error) => {
          info.status = 'failed';
          info.result = error.message;
        },
      ),
    );
    return { ...info };
  }

  list(): TaskInfo[] {
    return [...this.infos.values()];
  }

  get(taskId: string): TaskInfo | undefined {
    return this.infos.get(taskId);
  }

  async wait(taskId: string, timeoutMs: number): Promise<TaskInfo | undefined> {
    const done = this.done.get(taskId);
    if (!done) return undefined;
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
    return this.infos.get(taskId);
  }

  async tail(taskId: string): Promise<string> {
    return this.logs.get(taskId) ?? '';
  }

  stop(taskId: string, reason: string): TaskInfo | undefined {
    this.controllers.get(taskId)?.abort(new Error(reason));
    return this.infos.get(taskId);
  }
}

/** A user channel whose answers the test supplies; records every request. */
export class ScriptedUser implements UserChannel {
  readonly requests: QuestionRequest[] = [];
  private pending: Array<(reply: QuestionReply) => void> = [];

  constructor(
    private readonly answer?: (request: QuestionRequest) => QuestionReply,
    private readonly unavailable?: string,
  ) {}

  availability() {
    return this.unavailable ? ({ canAsk: false, reason: this.unavailable } as const) : ({ canAsk: true } as const);
  }

  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionReply> {
    this.requests.push(request);
    if (this.answer) return Promise.resolve(this.answer(request));
    return new Promise((resolve, reject) => {
      this.pending.push(resolve);
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  }

  /** Answers the oldest waiting request (for channels made without an answer function). */
  reply(reply: QuestionReply): void {
    this.pending.shift()?.(reply);
  }
}
