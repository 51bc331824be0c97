// The snapshot's log: one entry per thing to know, cut to the line width, in a ring of fixed size.
import { truncate } from './format.js';
import type { LogEntry, LogLevel, Snapshot } from './view-types.js';

/** Appends to the snapshot's log (the caller bumps the version). */
export function log(s: Snapshot, ts: number, level: LogLevel, text: string, agentId?: string): void {
  const entry: LogEntry = { ts, level, text: truncate(text, s.limits.lineChars) };
  if (agentId !== undefined) entry.agentId = agentId;
  s.log.push(entry);
}
