// `${VAR}` and `${VAR:-default}` in MCP configuration values, the syntax people's .mcp.json files already use.

export type Env = Readonly<Record<string, string | undefined>>;

export type Expanded = { ok: true; value: string } | { ok: false; missing: string };

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Replaces every reference; the first variable that is unset and has no default makes it fail. */
export function expandEnv(text: string, env: Env): Expanded {
  let missing: string | undefined;
  const value = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    if (found === '') return '';
    missing ??= name;
    return whole;
  });
  return missing === undefined ? { ok: true, value } : { ok: false, missing };
}
