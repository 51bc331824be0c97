// The session's item journal (`sessions/<id>/journal-<generation>.jsonl`): every change of the session's own
// swarm's items is appended here as it happens, one JSON line `{"swarm","index","record"}`, before anything tells
// the outside about it. state.json stays the snapshot a reader starts from; it says where in the journal it was
// taken (`journal: {generation, offset}`), and the reader applies what came after (replayJournal). So an item the
// events file calls completed is never run again by a resume, while state.json is still rewritten only now and then.
//
// Lines are written with one write(2) each and no fsync: a killed process (kill -9) loses none of them, a machine
// that loses power can lose the last seconds of them (the items then run again). When a generation passes
// ROTATE_BYTES, the next snapshot starts a new one and the older ones are removed once that snapshot is on disk.
import { readFileSync, unlinkSync } from 'node:fs';
import { NumberedAppender } from './numbered-appender.js';
import { fileNumbers, numberedFile } from './numbered-files.js';

import type { JournalPosition } from '../protocol/run-state.js';

export type { JournalPosition } from '../protocol/run-state.js';

/** One item's record as of a change. */
export interface JournalLine {
  swarm: string;
  index: number;
  record: unknown;
}

const ROTATE_BYTES = 4 * 1024 * 1024;
const STEM = 'journal';

function fileOf(dir: string, generation: number): string {
  return numberedFile(dir, STEM, generation);
}

/** The journal generations in `dir`, oldest first. */
function generations(dir: string): number[] {
  return fileNumbers(dir, STEM);
}

export class ItemJournal {
  private readonly file: NumberedAppender;

  constructor(private readonly dir: string) {
    this.file = new NumberedAppender(dir, STEM);
  }

  /** Why the last append failed (the snapshot still carries the change, later). */
  get failure(): string | undefined {
    return this.file.failure;
  }

  /** Appends one line now (one write); never throws. */
  append(line: JournalLine): void {
    this.file.append(`${JSON.stringify(line)}\n`);
  }

  /**
   * The position a snapshot taken now covers. A generation past ROTATE_BYTES is closed first: the snapshot then
   * starts the next one, and `pruneBefore` removes the older ones once it is written.
   */
  positionForSnapshot(): JournalPosition {
    if (this.file.size >= ROTATE_BYTES) this.file.next();
    return { generation: this.file.number, offset: this.file.size };
  }

  /** Removes the generations a written snapshot no longer needs. Never throws. */
  pruneBefore(position: JournalPosition): void {
    for (const generation of generations(this.dir)) {
      if (generation >= position.generation) break;
      try {
        unlinkSync(fileOf(this.dir, generation));
      } catch {
        // Gone already, or not ours to remove: a reader skips what the snapshot covers anyway.
      }
    }
  }

  close(): void {
    this.file.close();
  }
}

/** A snapshot's `journal` field as a position, or undefined when it is not one. */
function journalPosition(value: unknown): JournalPosition | undefined {
  const p = value as Partial<JournalPosition> | undefined;
  return p && Number.isInteger(p.generation) && Number.isInteger(p.offset) ? (p as JournalPosition) : undefined;
}

/** The lines after `from` (all of them without one), oldest first; a line cut by a killed process is skipped. */
export function journalLinesAfter(dir: string, from: JournalPosition | undefined): JournalLine[] {
  const lines: JournalLine[] = [];
  for (const generation of generations(dir)) {
    if (from && generation < from.generation) continue;
    let text: Buffer;
    try {
      text = readFileSync(fileOf(dir, generation));
    } catch {
      continue;
    }
    const start = from && generation === from.generation ? from.offset : 0;
    for (const raw of text.subarray(start).toString('utf8').split('\n')) {
      if (!raw) continue;
      try {
        const line = JSON.parse(raw) as Partial<JournalLine>;
        if (typeof line.swarm === 'string' && Number.isInteger(line.index) && line.record !== undefined)
          lines.push(line as JournalLine);
      } catch {
        // Only the last line can be cut (one write each): what came before it is whole.
      }
    }
  }
  return lines;
}

/**
 * A snapshot's swarm (`state.swarm`, whose items are records by index) with the journal's records after the
 * snapshot's position (`state.journal`) applied: the last line of an item is its newest record. Returns the swarm
 * unchanged when nothing applies.
 */
export function replayJournal(dir: string, state: { swarm?: unknown; journal?: unknown }): unknown {
  const { swarm } = state;
  const from = journalPosition(state.journal);
  if (typeof swarm !== 'object' || swarm === null) return swarm;
  const saved = swarm as { swarmId?: unknown; items?: unknown; queuedItems?: { count?: unknown } };
  if (typeof saved.swarmId !== 'string' || !Array.isArray(saved.items)) return swarm;
  const lines = journalLinesAfter(dir, from).filter((l) => l.swarm === saved.swarmId);
  if (lines.length === 0) return swarm;
  const items = [...(saved.items as unknown[])];
  // Items still queued in a version-4 file (a summary that does not list them) may have moved since too.
  const count = typeof saved.queuedItems?.count === 'number' ? saved.queuedItems.count : items.length;
  for (const line of lines) if (line.index >= 0 && line.index < count) items[line.index] = line.record;
  return { ...saved, items };
}
