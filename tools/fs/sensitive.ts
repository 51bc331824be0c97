// Sensitive files (secrets): never listed or searched, not even with include_ignored; reading one needs an
// explicit allow in configuration. Patterns use gitignore syntax: a pattern without a slash matches a file
// name at any depth.
import ignore, { type Ignore } from 'ignore';

export const SENSITIVE_PATTERNS: readonly string[] = [
  '.env',
  '.env.*',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '.npmrc',
  '.netrc',
  '.pypirc',
  '.pgpass',
  '.git-credentials',
  '**/.aws/credentials',
  '**/.docker/config.json',
];

// Made on the first check, not when the module loads: every run loads it, few read a file.
let sensitiveMatcher: Ignore | undefined;

/** `relPath`: relative to the root it lies in, forward slashes. */
export function isSensitivePath(relPath: string): boolean {
  if (relPath === '' || relPath === '.') return false;
  sensitiveMatcher ??= ignore().add(SENSITIVE_PATTERNS as string[]);
  return sensitiveMatcher.ignores(relPath.replace(/^\/+/, ''));
}

const allowMatchers = new Map<string, Ignore>();

/** Whether configuration (`WorkspacePolicy.allowSensitive`, workspace-relative globs) allows reading this file. */
export function isSensitiveAllowed(relPath: string, allowSensitive: readonly string[]): boolean {
  if (allowSensitive.length === 0) return false;
  const key = allowSensitive.join('\n');
  let matcher = allowMatchers.get(key);
  if (!matcher) {
    matcher = ignore().add(allowSensitive as string[]);
    allowMatchers.set(key, matcher);
  }
  return matcher.ignores(relPath.replace(/^\/+/, ''));
}

/** Whether a tool may touch this file: not sensitive, or allowed by configuration. */
export function sensitiveBlocked(relPath: string, allowSensitive: readonly string[]): boolean {
  return isSensitivePath(relPath) && !isSensitiveAllowed(relPath, allowSensitive);
}

export function sensitiveRefusal(display: string, action: 'Reading' | 'Writing' | 'Editing' = 'Reading'): string {
  return (
    `${display} is a sensitive file (environment files, private keys and credential files may hold secrets). ` +
    `${action} it needs an explicit allow in configuration (workspace allowSensitive).`
  );
}
