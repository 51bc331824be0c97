// One owner per session: whatever executes a session — a run, a swarm, a resume, a scheduled run, the library —
// holds `sessions/<id>/owner.lock` naming its process (pid, host, boot id, start time) for as long as it runs;
// viewers (`murmur sessions`, `murmur report`, the console's pages) never take it. A second executor is refused,
// naming the holder; a lock whose process is gone (a crash, kill -9, a reboot) is taken over. The same lock kind
// as the scheduler's service lock (scheduler/lock.ts), refreshed while held so a holder on another machine
// sharing the folder is judged by its heartbeat.
import { join } from 'node:path';
import { refreshServiceLock, releaseServiceLock, takeServiceLock, withLock, type ServiceHolder } from './lock.js';
import type { SessionStore } from '../orchestrator/session.js';

export const SESSION_LOCK_FILE = 'owner.lock';
const HEARTBEAT_MS = 30_000;

export interface SessionLock {
  release(): void;
}

export type Locked = { ok: true; lock: SessionLock } | { ok: false; error: string };

/** Sessions this process runs now: the lock file names a process, so two runs of one process must be told apart here. */
const heldHere = new Set<string>();

/** Takes the session for this process, or says who runs it now. */
export function lockSession(session: SessionStore, now = Date.now()): Locked {
  const path = join(session.dir, SESSION_LOCK_FILE);
  if (heldHere.has(path)) {
    return {
      ok: false,
      error: `session ${session.id} is already being run by this process (pid ${process.pid}); wait for that run to end`,
    };
  }
  // Under a short mutation lock, so two processes starting together cannot both win.
  const taken = withLock(`${path}.mutex`, () => takeServiceLock(path, now), { waitLimitMs: 5_000 });
  if (!taken.ok) {
    const { holder } = taken;
    return {
      ok: false,
      error: `session ${session.id} is being run by another murmur (${describeHolder(holder)}); wait for it to end, or stop it (kill ${holder.pid}) and resume again`,
    };
  }
  heldHere.add(path);
  const heartbeat = setInterval(() => refreshServiceLock(path), HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return {
    ok: true,
    lock: {
      release() {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        heldHere.delete(path);
        releaseServiceLock(path);
      },
    },
  };
}

/** "pid 4242 on box, since 2026-…": who holds a session, for messages. */
export function describeHolder(holder: ServiceHolder): string {
  const where = holder.host !== undefined ? ` on ${holder.host}` : '';
  const since = holder.startedAt > 0 ? `, since ${new Date(holder.startedAt).toISOString()}` : '';
  return `pid ${holder.pid}${where}${since}`;
}
