// Who a lock holder is, beyond a pid that the system reuses: the host, the boot (Linux boot_id) and the
// process's start time (field 22 of /proc/<pid>/stat, in clock ticks since boot). A pid that is alive but
// started at another time is another process; a holder from another boot is gone; one from another host
// cannot be checked from here.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessIdentity {
  pid: number;
  host: string;
  /** Absent where the system does not say (not Linux). */
  bootId?: string;
  startTime?: string;
}

function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

let bootIdCache: string | null | undefined;

export function bootId(): string | undefined {
  if (bootIdCache === undefined) bootIdCache = readOr('/proc/sys/kernel/random/boot_id') ?? null;
  return bootIdCache ?? undefined;
}

/** The start time of process `pid` (clock ticks since boot), where /proc says. */
export function processStartTime(pid: number): string | undefined {
  const stat = readOr(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return rest[19]; // field 22 = the 20th after field 2
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let mine: ProcessIdentity | undefined;

export function myIdentity(): ProcessIdentity {
  if (!mine || mine.pid !== process.pid) {
    mine = { pid: process.pid, host: hostname() };
    const boot = bootId();
    const start = processStartTime(process.pid);
    if (boot) mine.bootId = boot;
    if (start) mine.startTime = start;
  }
  return { ...mine };
}

/** Whether the holder's process still runs: true, false, or 'unknown' when it is on another host. */
export function holderAlive(holder: ProcessIdentity): boolean | 'unknown' {
  const me = myIdentity();
  if (holder.host !== me.host) return 'unknown';
  if (holder.bootId && me.bootId && holder.bootId !== me.bootId) return false;
  if (!pidAlive(holder.pid)) return false;
  if (holder.startTime) {
    const now = processStartTime(holder.pid);
    if (now && now !== holder.startTime) return false;
  }
  return true;
}
