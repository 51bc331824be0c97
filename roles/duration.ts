// Durations as people write them in agent files and murmur.toml: a bare number is seconds; "500ms", "90s",
// "10m", "1h". Zero and negative durations are not durations.

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/;
const FACTOR = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds, or undefined when the value is not a positive duration. */
export function durationToMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value);
  if (!match) return undefined;
  const ms = Math.round(Number(match[1]) * FACTOR[(match[2] ?? 's') as keyof typeof FACTOR]);
  return ms > 0 ? ms : undefined;
}

export const DURATION_HINT = 'a positive duration such as 90, "90s", "10m" or "1h"';
