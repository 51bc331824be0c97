// Secrets stay out of child processes: environment variables whose names match the secret patterns are
// removed before a command runs.

export const DEFAULT_SECRET_PATTERNS: readonly string[] = ['*_API_KEY', '*_TOKEN', '*_SECRET', '*_PASSWORD', 'AWS_SECRET_ACCESS_KEY'];

/** `*` matches any run of characters, `?` one; case-insensitive, whole name. */
export function secretNameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const expressions = patterns.map((pattern) => {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    return new RegExp(`^${body}$`, 'i');
  });
  return (name) => expressions.some((expression) => expression.test(name));
}

/** A copy of `env` without the secret-like variables. */
export function scrubSecrets(env: NodeJS.ProcessEnv, patterns: readonly string[] = DEFAULT_SECRET_PATTERNS): Record<string, string> {
  const isSecret = secretNameMatcher(patterns);
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecret(name)) clean[name] = value;
  }
  return clean;
}
