// Who runs a session now, for viewers that must not act on a session another process runs (the web console's
// answers): the live holder of its `owner.lock` (session-lock.ts), in the words `murmur resume` uses.
import { join } from 'node:path';
import { serviceHolder } from './lock.js';
import { describeHolder, SESSION_LOCK_FILE } from './session-lock.js';

/** "pid 4242 on box, since 2026-…" for the process running the session in `sessionDir`; undefined when none. */
export function sessionRunBy(sessionDir: string): string | undefined {
  const holder = serviceHolder(join(sessionDir, SESSION_LOCK_FILE));
  return holder ? describeHolder(holder) : undefined;
}
