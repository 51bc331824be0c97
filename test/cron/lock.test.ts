// The two locks on real files: a live holder is never robbed (however old its lock), a dead one — or a pid
// reused by another process, or a holder from another boot — is taken over, a takeover never deletes a fresh
// lock, and a holder only ever removes its own lock.
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refreshServiceLock, serviceHolder, takeOver, takeServiceLock, withLock } from '../../host/lock.js';
import { bootId, processStartTime } from '../../host/process-identity.js';

let dir: string;
let lock: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'murmur-cron-lock-'));
  lock = join(dir, '.lock');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const DEAD_PID = 2 ** 22 + 4321;
const linux = processStartTime(process.pid) !== undefined;

/** A holder that is this test's parent process (alive for the whole test). */
function liveHolder(extra: Record<string, unknown> = {}) {
  return {
    pid: process.ppid,
    host: hostname(),
    bootId: bootId(),
    startTime: processStartTime(process.ppid),
    token: 'theirs',
    ...extra,
  };
}

function age(path: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  utimesSync(path, then, then);
}

describe('the mutation lock', () => {
  it('never takes over a lock whose holder is alive, however old the lock (a holder asleep mid-change)', () => {
    writeFileSync(lock, JSON.stringify(liveHolder()));
    age(lock, 10 * 60_000);
    expect(() => withLock(lock, () => 'mine', { waitLimitMs: 150 })).toThrow(/locked by another process \(pid \d+/);
    expect(JSON.parse(readFileSync(lock, 'utf8')).token).toBe('theirs');
  });

  it("takes over a dead holder's lock at once", () => {
    writeFileSync(lock, JSON.stringify({ ...liveHolder(), pid: DEAD_PID }));
    expect(withLock(lock, () => 'mine', { waitLimitMs: 150 })).toBe('mine');
    expect(existsSync(lock)).toBe(false);
  });

  it.runIf(linux)('takes over a lock whose pid now belongs to another process (reused after a crash or reboot)', () => {
    writeFileSync(lock, JSON.stringify(liveHolder({ startTime: '1' })));
    expect(withLock(lock, () => 'mine', { waitLimitMs: 150 })).toBe('mine');
    writeFileSync(lock, JSON.stringify(liveHolder({ bootId: 'another-boot' })));
    expect(withLock(lock, () => 'mine', { waitLimitMs: 150 })).toBe('mine');
  });

  it('removes only its own lock: one taken over meanwhile is left to its new holder', () => {
    const theirs = JSON.stringify(liveHolder());
    withLock(lock, () => writeFileSync(lock, theirs));
    expect(readFileSync(lock, 'utf8')).toBe(theirs);
  });

  it('a takeover that finds a fresh lock in place of the stale one it judged puts the fresh one back', () => {
    const stale = JSON.stringify({ ...liveHolder(), pid: DEAD_PID });
    const fresh = JSON.stringify(liveHolder({ token: 'fresh' }));
    // Waiter B judged `stale` abandoned; waiter A has already replaced it with its own lock.
    writeFileSync(lock, fresh);
    takeOver(lock, stale);
    expect(readFileSync(lock, 'utf8')).toBe(fresh);
    // The stale lock itself is removed.
    writeFileSync(lock, stale);
    takeOver(lock, stale);
    expect(existsSync(lock)).toBe(false);
  });
});

describe('the service lock', () => {
  it.runIf(linux)('is taken over when its pid is alive but is another process, or is from another boot', () => {
    writeFileSync(lock, JSON.stringify({ ...liveHolder({ startTime: '1' }), startedAt: 0 }));
    expect(serviceHolder(lock)).toBeUndefined();
    expect(takeServiceLock(lock, 0)).toEqual({ ok: true });
    writeFileSync(lock, JSON.stringify({ ...liveHolder({ bootId: 'another-boot' }), startedAt: 0 }));
    expect(takeServiceLock(lock, 0)).toEqual({ ok: true });
    writeFileSync(lock, JSON.stringify({ ...liveHolder(), startedAt: 0 }));
    expect(takeServiceLock(lock, 0)).toMatchObject({ ok: false, holder: { pid: process.ppid } });
  });

  it('from another host: live while its holder refreshes it, abandoned once it stops', () => {
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: 'elsewhere.example', startedAt: 0 }));
    expect(takeServiceLock(lock, 0)).toMatchObject({ ok: false, holder: { host: 'elsewhere.example' } });
    age(lock, 5 * 60_000);
    expect(takeServiceLock(lock, 0)).toEqual({ ok: true });
  });

  it('its heartbeat tells the holder when another scheduler took it over', () => {
    expect(takeServiceLock(lock, 0)).toEqual({ ok: true });
    expect(refreshServiceLock(lock)).toBe(true);
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: 'elsewhere.example', startedAt: 0 }));
    expect(refreshServiceLock(lock)).toBe(false);
  });
});
