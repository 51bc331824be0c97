// The options of one run and one swarm of a murmur instance (types only).
import type { Answers } from '../host/answers.js';
import type { AnySchema } from './schema.js';
import type { DefinedAgent } from './agents.js';
import type { SwarmTemplate } from './output.js';
import type { ToolAccess } from '../protocol/tool-access.js';

/** run()'s options: the agent, a typed output, the tools its agents may see, and a signal. */
export interface RunOptions<S extends AnySchema = AnySchema> {
  /**
   * A role (`worker`, `explore`…), a defined agent's name, or an agent of `agents` (its output types the report's
   * when `output` is not given); absent = the main agent.
   */
  agent?: string | DefinedAgent<S>;
  /** Which tools the run's agents may see (every agent of the run); approvals stay with `permissions`. */
  toolAccess?: ToolAccess;
  /** Aborts this run (finished work is kept). */
  signal?: AbortSignal;
  /** A typed output: the agent answers through final_answer, checked against this schema; the report's `output`. */
  output?: S;
  /** Invalid answers sent back with the validation errors before the run fails (default 1). */
  outputRetries?: number;
}

/** swarm()'s options: the template and items, the role, a typed output, verification, isolation and concurrency. */
export interface SwarmOptions<T = string, S extends AnySchema = AnySchema> {
  /**
   * The prompt for each item: a string where every {{item}} is replaced by the item (by its JSON for an object;
   * {{field}} by that field of an object item), or a function of the item.
   */
  template: SwarmTemplate<T>;
  /** Strings, or any values with a template function or {{field}} placeholders (each row's `input`). */
  items: readonly T[];
  /** A typed output for every item: each worker answers through final_answer; each row's `output`. */
  output?: S;
  /** Invalid answers sent back with the validation errors before an item fails (default 1). */
  outputRetries?: number;
  /** explore, worker (default), verifier, a defined agent's name, or an agent of `agents`. */
  role?: string | DefinedAgent<S>;
  /** Which tools the swarm's agents may see (items and verifiers); approvals stay with `permissions`. */
  toolAccess?: ToolAccess;
  /** A verifier checks each completed item; failures go back to the worker. */
  verify?: boolean;
  /** Verify rounds per item (default 2). */
  maxRounds?: number;
  /** worktree: each worker in its own git worktree, merged back when it completes. */
  isolation?: 'none' | 'worktree';
  maxConcurrency?: number;
  /** A short title (default: the template's first line and the item count). */
  description?: string;
  /** Run the items on `murmur worker`s through this Redis queue (redis://…) instead of in this process. */
  queue?: string;
  signal?: AbortSignal;
}

/** resume()'s options: the answers to what the session waits for, and a signal to abort it. */
export interface ResumeOptions {
  signal?: AbortSignal;
  /** Answers to what the session waits for, by `agentId/callId` (or the call id when one agent made it). */
  answers?: Answers;
}
