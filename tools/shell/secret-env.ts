// Secrets stay out of child processes: environment variables whose names match the secret patterns are
// removed before a command runs. Configured patterns add to the defaults, never replace them, so a narrow
// list in configuration cannot let API keys through.

/**
 * Names that hold secrets by convention. `*_KEY` covers OPENAI_KEY, API_KEY, *_API_KEY, *_PRIVATE_KEY,
 * STRIPE_SECRET_KEY and AWS_SECRET_ACCESS_KEY; `*PASSWORD` covers PGPASSWORD. Ordinary variables (PATH, HOME,
 * LANG, SSH_AUTH_SOCK…) match none of them.
 */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = [
  '*_KEY',
  'APIKEY',
  '*_APIKEY',
  'TOKEN',
  '*_TOKEN',
  'SECRET',
  'SECRET_*',
  '*_SECRET',
  '*_SECRET_*',
  '*PASSWORD',
  '*_PASSWD',
  '*_CREDENTIAL',
  '*_CREDENTIALS',
  // The swarm queue's Redis URL may hold its password.
  'MURMUR_QUEUE',
];

/** `*` matches any run of characters, `?` one; case-insensitive, whole name. */
export function secretNameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const expressions = patterns.map((pattern) => {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    return new RegExp(`^${body}$`, 'i');
  });
  return (name) => expressions.some((expression) => expression.test(name));
}

/** A copy of `env` without the variables matching the default patterns or `extraPatterns`. */
export function scrubSecrets(env: NodeJS.ProcessEnv, extraPatterns: readonly string[] = []): Record<string, string> {
  const isSecret = secretNameMatcher([...new Set([...DEFAULT_SECRET_PATTERNS, ...extraPatterns])]);
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecret(name)) clean[name] = value;
  }
  return clean;
}
