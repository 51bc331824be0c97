// Processes a command started that left its process group (setsid, a daemon forking away): a group kill does
// not reach them. Each command's environment carries a marker; a process still running with that marker
// outside the group is one that escaped. Linux only (it reads /proc); elsewhere nothing is found.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The variable that marks every process of one command. */
export const COMMAND_MARKER_VARIABLE = 'MURMUR_COMMAND_ID';

export function newCommandMarker(): string {
  return randomUUID();
}

export interface EscapedProcess {
  pid: number;
  /** The command line, cut to a readable length. */
  command: string;
}

const MAX_COMMAND_CHARS = 80;

/** State and process group from /proc/PID/stat (fields after the command name, which may hold spaces). */
function stateAndGroup(pid: string): { state: string; pgid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgid: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

function commandLine(pid: string): string {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
  } catch {
    return '?';
  }
  return text.length > MAX_COMMAND_CHARS ? `${text.slice(0, MAX_COMMAND_CHARS - 1)}…` : text || '?';
}

/** Live processes (zombies left out) carrying `marker`, outside the process group `pgid`. */
export function findEscapedProcesses(marker: string, pgid: number): EscapedProcess[] {
  if (process.platform !== 'linux') return [];
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = Buffer.from(`\0${COMMAND_MARKER_VARIABLE}=${marker}\0`);
  const first = Buffer.from(`${COMMAND_MARKER_VARIABLE}=${marker}\0`);
  const found: EscapedProcess[] = [];
  for (const pid of pids) {
    if (pid.charCodeAt(0) < 48 || pid.charCodeAt(0) > 57 || Number(pid) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    if (!environ.includes(needle) && !environ.subarray(0, first.length).equals(first)) continue;
    const info = stateAndGroup(pid);
    // Members of the group were just stopped (SIGKILL may still be on its way); zombies run nothing.
    if (!info || info.pgid === pgid || info.state === 'Z' || info.state === 'X') continue;
    found.push({ pid: Number(pid), command: commandLine(pid) });
  }
  return found.sort((a, b) => a.pid - b.pid);
}
