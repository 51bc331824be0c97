// The scheduler service's check interval and clock from the environment, for `murmur scheduler` and `murmur serve`:
// MURMUR_CRON_CHECK_MS (how often it checks) and MURMUR_CRON_CLOCK_OFFSET_MS (shifts its clock, for tests).
import { UsageError } from './args.js';
import { systemClock, type Clock } from '../host/command-parts.js';

function envMs(command: string, env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(
      `murmur ${command}: ${name}=${JSON.stringify(raw)} is not accepted; give a number of milliseconds from ${min} to ${max}.`,
    );
  return n;
}

export function cronTiming(
  command: string,
  env: NodeJS.ProcessEnv,
  limits: { defaultCheckMs: number; maxCheckMs: number },
): { checkIntervalMs: number; clock: Clock } {
  const checkIntervalMs = envMs(command, env, 'MURMUR_CRON_CHECK_MS', 10, limits.maxCheckMs) ?? limits.defaultCheckMs;
  const offset = envMs(command, env, 'MURMUR_CRON_CLOCK_OFFSET_MS', -1e12, 1e12) ?? 0;
  const clock: Clock = offset === 0 ? systemClock : { ...systemClock, now: () => Date.now() + offset };
  return { checkIntervalMs, clock };
}
