// Swarm settings from flags, the environment and murmur.toml, with the precedence and error rules of the
// issue: an invalid concurrency cap fails the call before any launch; an invalid item limit is a warning.
import { durationMs, positiveIntFromEnv, type MurmurConfig } from '../orchestrator/config.js';
import { DEFAULT_CONTROLLER_OPTIONS, type ControllerOptions } from './controller.js';

export const DEFAULT_MAX_SWARM_ITEMS = 128;
export const DEFAULT_MAX_ROUNDS = 2;

export interface SwarmSettings {
  controller: ControllerOptions;
  /** Per attempt; waiting in the queue does not count. */
  itemTimeoutMs: number;
  maxRounds: number;
}

/** The concurrency cap: `--max-concurrency`, else MURMUR_SWARM_MAX_CONCURRENCY, else config. */
export function maxConcurrency(options: { flag?: number; env: NodeJS.ProcessEnv; config: MurmurConfig }): {
  value?: number;
  error?: string;
} {
  if (options.flag !== undefined) return { value: options.flag };
  const fromEnv = positiveIntFromEnv(options.env, 'MURMUR_SWARM_MAX_CONCURRENCY');
  if (fromEnv.invalid)
    return {
      error: `${fromEnv.invalid}; set it to a positive whole number (the most subagents running at once) or unset it`,
    };
  if (fromEnv.value !== undefined) return { value: fromEnv.value };
  const configured = options.config.swarm?.maxConcurrency;
  return configured !== undefined ? { value: configured } : {};
}

/** Items allowed in one agent_swarm call: MURMUR_SWARM_MAX_ITEMS, else `[subagent] maxSwarmItems`, else 128; 0 = no limit. */
export function maxSwarmItems(env: NodeJS.ProcessEnv, config: MurmurConfig): { limit: number; warning?: string } {
  const fromEnv = positiveIntFromEnv(env, 'MURMUR_SWARM_MAX_ITEMS', { allowZero: true });
  const configured = config.subagent?.maxSwarmItems ?? DEFAULT_MAX_SWARM_ITEMS;
  const limit = fromEnv.value ?? configured;
  const result: { limit: number; warning?: string } = { limit: limit === 0 ? Number.POSITIVE_INFINITY : limit };
  if (fromEnv.invalid)
    result.warning = `${fromEnv.invalid}; it is ignored (the limit stays ${configured === 0 ? 'off' : configured})`;
  return result;
}

export function swarmSettings(config: MurmurConfig, cap: number | undefined): SwarmSettings {
  const s = config.swarm ?? {};
  const controller: ControllerOptions = {
    ...DEFAULT_CONTROLLER_OPTIONS,
    initialBurst: s.initialBurst ?? DEFAULT_CONTROLLER_OPTIONS.initialBurst,
    rampIntervalMs: durationMs(s.rampInterval, DEFAULT_CONTROLLER_OPTIONS.rampIntervalMs),
    quietWindowMs: durationMs(s.quietWindow, DEFAULT_CONTROLLER_OPTIONS.quietWindowMs),
    maxRateLimitRetries: s.maxRetries ?? DEFAULT_CONTROLLER_OPTIONS.maxRateLimitRetries,
  };
  if (cap !== undefined) controller.maxConcurrency = cap;
  return {
    controller,
    itemTimeoutMs: durationMs(s.itemTimeout, 30 * 60_000),
    maxRounds: s.maxRounds ?? DEFAULT_MAX_ROUNDS,
  };
}
