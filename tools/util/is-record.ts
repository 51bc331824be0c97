// The one check for "a plain object" (not null, not an array) that argument and configuration readers share.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
