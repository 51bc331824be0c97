// `--session-id ID` (hidden; run and swarm): the new session gets the id its starter chose, so the web console can
// open the session it started before the run has written anything. An id in use or not a plain name is refused.
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { stringFlag, UsageError, type ParsedArgs } from './args.js';
import { SessionStore, stateHome } from '../host/session-store.js';
import type { Environment } from '../host/workspace-config.js';

export function namedSession(
  command: string,
  args: ParsedArgs,
  cwd: string,
  env: Environment,
): { session?: SessionStore } {
  const id = stringFlag(args, 'session-id');
  if (id === undefined) return {};
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/.test(id))
    throw new UsageError(`murmur ${command}: --session-id ${JSON.stringify(id)} is not a session id.`);
  const home = stateHome(realpathSync(cwd), env);
  if (existsSync(join(home, 'sessions', id)))
    throw new UsageError(`murmur ${command}: --session-id ${JSON.stringify(id)} names an existing session.`);
  return { session: SessionStore.create(home, id) };
}
