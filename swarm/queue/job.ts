// What travels on the queue: an item's job (everything a worker needs to run it, nothing secret) and what the
// worker sends back. Both carry a format number: a worker refuses a job of another format with a clear reason.
import type { AgentProfile } from '../../roles/profile.js';
import { BUILTIN_ROLES } from '../../roles/builtin.js';
import type { Usage } from '../../orchestrator/types.js';
import type { ItemOutcome } from '../report.js';

export const JOB_FORMAT = 1;

export interface ItemJob {
  format: number;
  swarmId: string;
  index: number;
  item: string;
  /** The item's prompt (the template with the item filled in). */
  prompt: string;
  template?: string;
  /**
   * The role or agent definition every item runs as (a defined agent travels whole: workers may lack its file),
   * with the swarm's typed output (`profile.output`) when it has one.
   */
  profile: AgentProfile;
  verify: boolean;
  maxRounds: number;
  itemTimeoutMs: number;
  /** The swarm's model spec; a worker started with --model uses its own. */
  model: string;
  /** The commit the coordinator's workspace is at: the worker's worktree starts there. */
  base: string;
  /** The workspace's folder inside the repository ('' at its top). */
  subdir: string;
  permissionMode?: string;
  effort?: string;
  /** The coordinator's agents ran their shells in the sandbox: the item's do too, on any worker. */
  sandbox?: { network: boolean };
  /** The swarm-wide limit on model requests in flight (`[limits] maxModelRequests` of the coordinator). */
  maxModelRequests: number;
  /**
   * The W3C traceparent of the item's span when the coordinator records traces: the worker's spans of the item
   * join that trace. Optional (a worker that cannot read it, or records nothing, ignores it).
   */
  traceparent?: string;
}

export interface ItemOutcomeData {
  format: number;
  /** `rate_limited`: the provider still said 429 after its retries: the coordinator's controller takes over. */
  kind: 'done' | 'rate_limited';
  outcome: ItemOutcome;
  text: string;
  reason?: string;
  verdict?: 'pass' | 'fail';
  rounds: number;
  usage?: Usage;
  retryAfterMs?: number;
  /** `git diff --binary` of the item's changes against the base commit ('' for none). */
  diff: string;
  host: string;
  model: string;
  /** Typed outputs: the worker's final answer. */
  output?: unknown;
}

/** Progress a worker publishes while it runs an item (job progress, relayed by QueueEvents). */
export interface ItemProgress {
  state: 'launched' | 'verifying';
  host: string;
  model: string;
  extra?: Record<string, unknown>;
}

/** The BullMQ queue of one swarm: named after the run's session and the swarm. */
export function queueName(runId: string, swarmId: string): string {
  return `murmur-${runId}-${swarmId}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a job's data; the error says which field is wrong (or that another murmur version made it). */
export function parseItemJob(data: unknown): { ok: true; job: ItemJob } | { ok: false; error: string } {
  if (!isRecord(data)) return { ok: false, error: 'the job data is not an object' };
  if (data.format !== JOB_FORMAT) {
    return {
      ok: false,
      error: `the job has format ${JSON.stringify(data.format)}, and this worker reads format ${JOB_FORMAT}: run the same murmur version on the coordinator and the workers`,
    };
  }
  const strings = ['swarmId', 'item', 'prompt', 'model', 'base'] as const;
  for (const key of strings)
    if (typeof data[key] !== 'string' || data[key] === '')
      return { ok: false, error: `the job's "${key}" is missing or not a non-empty string` };
  if (typeof data.subdir !== 'string') return { ok: false, error: 'the job\'s "subdir" is not a string' };
  if (!/^[0-9a-f]{7,64}$/i.test(data.base as string))
    return { ok: false, error: `the job's base commit ${JSON.stringify(data.base)} is not a commit id` };
  for (const key of ['index', 'maxRounds', 'itemTimeoutMs', 'maxModelRequests'] as const) {
    if (typeof data[key] !== 'number' || !Number.isFinite(data[key]) || (data[key] as number) < 0)
      return { ok: false, error: `the job's "${key}" is not a non-negative number` };
  }
  if (typeof data.verify !== 'boolean') return { ok: false, error: 'the job\'s "verify" is not true or false' };
  const profile = data.profile;
  if (
    !isRecord(profile) ||
    typeof profile.name !== 'string' ||
    typeof profile.prompt !== 'string' ||
    typeof profile.role !== 'string'
  ) {
    return { ok: false, error: 'the job\'s "profile" is not an agent profile (name, role, prompt)' };
  }
  const output = profile.output as { schema?: unknown } | undefined;
  if (output !== undefined && (!isRecord(output) || !isRecord(output.schema)))
    return { ok: false, error: 'the job\'s "profile.output" has no JSON Schema ("schema")' };
  if (profile.role === 'main')
    return { ok: false, error: 'the job asks for the main role, which cannot run swarm items' };
  // The role caps the agent's tools: one this murmur does not know would leave it with no caps to apply.
  if (!Object.hasOwn(BUILTIN_ROLES, profile.role))
    return {
      ok: false,
      error: `the job's "profile.role" ${JSON.stringify(profile.role)} is not a role this worker knows (${Object.keys(
        BUILTIN_ROLES,
      )
        .filter((r) => r !== 'main')
        .join(', ')}); is the coordinator a newer murmur?`,
    };
  if (data.subdir.split(/[\\/]/).includes('..'))
    return { ok: false, error: `the job's "subdir" ${JSON.stringify(data.subdir)} leaves the repository` };
  return { ok: true, job: data as unknown as ItemJob };
}
