// Small helpers shared by the tools' prepareArguments: legacy argument names and numbers sent as strings.

/** Copies `from` to `to` when only the legacy name was sent. */
export function renameArgument(args: Record<string, unknown>, from: string, to: string): void {
  if (args[from] !== undefined && args[to] === undefined) {
    args[to] = args[from];
    delete args[from];
  }
}

/** Turns "42" into 42 for the named keys (models sometimes quote numbers). */
export function numberArguments(args: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) args[key] = Number(value.trim());
  }
}

/** Turns "true"/"false" into booleans for the named keys. */
export function booleanArguments(args: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) {
    const value = args[key];
    if (value === 'true') args[key] = true;
    else if (value === 'false') args[key] = false;
  }
}
