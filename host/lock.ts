// Two locks, shared by the host (a session's lock: session-lock.ts) and the scheduler. A short mutation lock (a file created exclusively) around every read-modify-write of the cron
// files, so the scheduler and a `murmur schedule` command never lose each other's changes; and the service
// lock, held for as long as a scheduler serves a workspace, naming its process.
//
// Both name their holder by more than a pid — host, boot and the process's start time (process-identity.ts) —
// so a pid reused after a crash or a reboot, or a pid on another machine sharing the home, is not taken for
// the holder. A stale lock is taken over by renaming it to a unique name first: only one waiter can win that
// rename, so two waiters never both remove a lock and one of them the other's fresh one.
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { holderAlive, myIdentity, pidAlive, type ProcessIdentity } from './process-identity.js';

export { pidAlive } from './process-identity.js';

/** A mutation lock from another machine (whose process cannot be checked) is abandoned after this long. */
const FOREIGN_LOCK_MS = 60_000;
/** A lock file that names nobody (its holder died between creating and writing it) is abandoned after this. */
const UNNAMED_LOCK_MS = 10_000;
const WAIT_LIMIT_MS = 10_000;
/** A service lock is refreshed at every check (at most every 30 s); one not refreshed for this long is abandoned. */
export const SERVICE_HEARTBEAT_LIMIT_MS = 3 * 30_000;

interface MutationHolder extends ProcessIdentity {
  token: string;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function tryCreate(path: string, text: string): boolean {
  try {
    const fd = openSync(path, 'wx');
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function parseHolder<T extends { pid: number }>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as T;
    return value && typeof value === 'object' && Number.isInteger(value.pid) ? value : undefined;
  } catch {
    return undefined;
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Whether the mutation lock with this content is abandoned. A holder whose process is alive never is (a holder
 * stopped by a laptop's sleep still holds it); a dead one, or one from another boot, is at once.
 */
function mutationLockAbandoned(text: string, path: string): boolean {
  const holder = parseHolder<MutationHolder>(text);
  if (!holder) return ageMs(path) > UNNAMED_LOCK_MS;
  const alive = holderAlive(holder);
  if (alive === 'unknown') return ageMs(path) > FOREIGN_LOCK_MS;
  return !alive;
}

/**
 * Removes the lock at `path` if it still holds `seen` (judged abandoned): renamed aside first, so of several
 * waiters only one takes it, and a fresh lock made meanwhile by another is put back, not deleted.
 */
export function takeOver(path: string, seen: string): void {
  const aside = `${path}.stale-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // Another waiter took it first.
  }
  if (readText(aside) !== seen) {
    // Not the lock we judged: someone's live lock. Put it back unless yet another holder exists now.
    try {
      linkSync(aside, path);
    } catch {
      // A new holder is in place; the one we moved will find its token gone and not delete the new one.
    }
  }
  rmSync(aside, { force: true });
}

/** Runs `fn` holding the mutation lock at `path` (created exclusively; waits for another holder). */
export function withLock<T>(path: string, fn: () => T, options: { waitLimitMs?: number } = {}): T {
  mkdirSync(dirname(path), { recursive: true });
  const mine: MutationHolder = { ...myIdentity(), token: randomBytes(12).toString('hex') };
  const text = JSON.stringify(mine);
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(path, text)) break;
    const seen = readText(path);
    if (seen !== undefined && mutationLockAbandoned(seen, path)) {
      takeOver(path, seen);
      continue;
    }
    if (Date.now() - started > (options.waitLimitMs ?? WAIT_LIMIT_MS)) {
      const holder = parseHolder<MutationHolder>(seen);
      throw new Error(
        `the cron files are locked by another process${holder ? ` (pid ${holder.pid} on ${holder.host})` : ''} (${path}); try again`,
      );
    }
    sleepSync(Math.min(5 + attempt * 5, 50));
  }
  try {
    return fn();
  } finally {
    // Only our own lock: had it been taken over, the file is someone else's now.
    if (readText(path) === text) rmSync(path, { force: true });
  }
}

export interface ServiceHolder extends Partial<ProcessIdentity> {
  pid: number;
  startedAt: number;
}

/**
 * Whether the service lock's holder still serves: its process is alive (same host and boot, same start time),
 * or — when its process cannot be checked from here (another machine) — it refreshed the lock recently.
 */
function serviceLockLive(holder: ServiceHolder, path: string): boolean {
  const alive =
    holder.host === undefined ? pidAlive(holder.pid) : holderAlive(holder as ServiceHolder & ProcessIdentity);
  if (alive === 'unknown') return ageMs(path) <= SERVICE_HEARTBEAT_LIMIT_MS;
  return alive;
}

function isMine(holder: ServiceHolder | undefined): boolean {
  if (!holder || holder.pid !== process.pid) return false;
  const me = myIdentity();
  return (
    (holder.host === undefined || holder.host === me.host) &&
    (holder.bootId === undefined || holder.bootId === me.bootId)
  );
}

/**
 * Takes the service lock for this process, or returns who holds it. A lock whose process is gone (a crash,
 * a reboot) is taken over. Call under the mutation lock so two schedulers starting together cannot both win.
 */
export function takeServiceLock(path: string, now: number): { ok: true } | { ok: false; holder: ServiceHolder } {
  mkdirSync(dirname(path), { recursive: true });
  const mine: ServiceHolder = { ...myIdentity(), startedAt: now };
  if (tryCreate(path, JSON.stringify(mine))) return { ok: true };
  const seen = readText(path);
  const holder = parseHolder<ServiceHolder>(seen);
  if (holder && !isMine(holder) && serviceLockLive(holder, path)) return { ok: false, holder };
  if (seen !== undefined) takeOver(path, seen);
  if (tryCreate(path, JSON.stringify(mine))) return { ok: true };
  return { ok: false, holder: holder ?? { pid: 0, startedAt: 0 } };
}

/**
 * The heartbeat: marks the service lock as still served (its time), and says whether this process still holds
 * it — false when another scheduler took it over (this one was asleep or cut off for too long).
 */
export function refreshServiceLock(path: string): boolean {
  if (!isMine(parseHolder<ServiceHolder>(readText(path)))) return false;
  try {
    const now = new Date();
    utimesSync(path, now, now);
    return true;
  } catch {
    return false;
  }
}

export function releaseServiceLock(path: string): void {
  if (isMine(parseHolder<ServiceHolder>(readText(path)))) rmSync(path, { force: true });
}

/** The live holder of a service lock, if any. */
export function serviceHolder(path: string): ServiceHolder | undefined {
  const holder = parseHolder<ServiceHolder>(readText(path));
  return holder && serviceLockLive(holder, path) ? holder : undefined;
}
