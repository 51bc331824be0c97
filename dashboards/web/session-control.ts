// Stop and Resume for a session page. Who runs a session is read from its owner.lock (host/session-lock.ts: pid,
// host, boot id, process start time). Stop is a SIGINT to that holder — the graceful stop of a Ctrl-C: items end
// aborted and the session can be resumed — sent only when the holder is on this machine and is still the process
// that took the lock (same boot, same start time); a holder elsewhere cannot be signalled from here, and the
// answer says so. Resume is offered when nobody holds the session and it did not complete.
import { join } from 'node:path';
import { SESSION_LOCK_FILE } from '../../host/session-lock.js';
import { serviceHolder, type ServiceHolder } from '../../host/lock.js';
import { holderAlive, myIdentity, processStartTime } from '../../host/process-identity.js';
import { readStatus, sessionDir } from './session-source.js';

/** A saved status a resume can continue from (a saved `running` nobody holds was interrupted). */
export const RESUMABLE = ['aborted', 'interrupted', 'failed', 'timeout', 'budget'];

export interface Action {
  enabled: boolean;
  /** Why it is disabled (or what it does). */
  reason?: string;
}

export interface Control {
  /** `running` while a process holds the session; else its saved status (`interrupted` for a dead holder's). */
  status: string;
  running: boolean;
  /** Present while the session is held. */
  stop?: Action & { pid?: number; host?: string };
  /** Present when it is not held and did not complete. */
  resume?: Action;
}

export function lockFileOf(home: string, id: string): string {
  return join(sessionDir(home, id), SESSION_LOCK_FILE);
}

/** Whether this process may signal `pid` (false for another user's process). */
function maySignal(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether Stop may signal the holder, or why not. */
function stopAction(holder: ServiceHolder): Control['stop'] {
  const me = myIdentity();
  const who = `pid ${holder.pid}${holder.host !== undefined ? ` on ${holder.host}` : ''}`;
  const base = { pid: holder.pid, ...(holder.host !== undefined ? { host: holder.host } : {}) };
  if (holder.host !== undefined && holder.host !== me.host)
    return {
      ...base,
      enabled: false,
      reason: `Run by ${who}, not this machine (${me.host}): stop it there (Ctrl-C in its terminal, or kill -INT ${holder.pid}).`,
    };
  if (holder.host === undefined || (me.startTime !== undefined && holder.startTime === undefined))
    return {
      ...base,
      enabled: false,
      reason: `Run by pid ${holder.pid}, whose lock does not say which process it is: stop it where it runs.`,
    };
  if (!maySignal(holder.pid))
    return {
      ...base,
      enabled: false,
      reason: `Run by ${who} of another user: this console may not signal it.`,
    };
  return { ...base, enabled: true, reason: `Stops ${who} as Ctrl-C would: unfinished work ends aborted, resumable.` };
}

export function sessionControl(home: string, id: string, endedStatus: string | undefined): Control {
  const holder = serviceHolder(lockFileOf(home, id));
  if (holder) return { status: 'running', running: true, stop: stopAction(holder) };
  const saved = endedStatus ?? readStatus(home, id) ?? 'unknown';
  const status = saved === 'running' ? 'interrupted' : saved;
  if (status === 'completed') return { status, running: false };
  const resume: Action = RESUMABLE.includes(status)
    ? { enabled: true, reason: `Continues the work that did not finish (murmur resume ${id}).` }
    : {
        enabled: false,
        reason:
          status === 'waiting'
            ? 'It waits for an answer to its request.'
            : `A session whose status is ${status} cannot be resumed.`,
      };
  return { status, running: false, resume };
}

export type Stopped = { ok: true; pid: number } | { ok: false; error: string };

/** SIGINT to the session's holder, after checking again that it is the live process on this machine that took it. */
export function stopSession(home: string, id: string): Stopped {
  const holder = serviceHolder(lockFileOf(home, id));
  if (!holder) return { ok: false, error: `session ${id} is not running: no process holds it` };
  const action = stopAction(holder)!;
  if (!action.enabled) return { ok: false, error: action.reason! };
  // The check right before the signal: same host, same boot, the pid alive and started when the lock says.
  const alive = holderAlive({ ...holder, host: holder.host! });
  const started = processStartTime(holder.pid);
  if (alive !== true || (holder.startTime !== undefined && started !== holder.startTime))
    return {
      ok: false,
      error: `session ${id} is not running: pid ${holder.pid} is no longer the process that held it`,
    };
  try {
    process.kill(holder.pid, 'SIGINT');
  } catch (error) {
    return { ok: false, error: `could not signal pid ${holder.pid}: ${(error as NodeJS.ErrnoException).code}` };
  }
  return { ok: true, pid: holder.pid };
}
