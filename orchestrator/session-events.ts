// Every session keeps its own event stream on disk (written for every host: the command line, the MCP server, the
// library): `sessions/<id>/events.jsonl`, the same lines as `--events`
// (message and message.delta stay in the transcripts, tool.update's streamed output is left out too). The web
// console tails it for a live session and folds it for a finished one. Appended (a resumed session goes on in
// the same file) through the append pool, so the loop never waits for the disk and a write that fails for good is
// a loss the run's status reports (run-records.ts), never a silent gap.
import { join } from 'node:path';
import { EVENT_TYPES, NOT_IN_EVENT_LOG, type EventBus, type EventType, type MurmurEvent } from './events.js';
import { sharedAppendPool, type AppendPool, type WriteLoss } from './append-pool.js';

export const SESSION_EVENTS_FILE = 'events.jsonl';

const LEFT_OUT: ReadonlySet<EventType> = new Set<EventType>([...NOT_IN_EVENT_LOG, 'tool.update']);

export interface SessionEventsWriter {
  /** Resolves once every event so far is written: undefined, or the loss that stopped the log. */
  written(): Promise<WriteLoss | undefined>;
  /** Stops listening and resolves once everything is written. */
  close(): Promise<void>;
}

/** The most text a tick's batch of lines holds before it is handed to the pool anyway. */
const BATCH_CHARS = 64 * 1024;

/** Subscribes to the bus and appends each event to the session's events.jsonl. */
export function recordSessionEvents(
  bus: EventBus,
  sessionDir: string,
  pool: AppendPool = sharedAppendPool(),
): SessionEventsWriter {
  const path = join(sessionDir, SESSION_EVENTS_FILE);
  // The file exists from the start (the console tells a live session from one older than events.jsonl by it).
  pool.append(path, '');
  // Lines of one tick go to the pool as one chunk: a 10,000-item swarm on a fast model emits far faster than a
  // disk takes single lines, and each queued chunk costs more than its text.
  let batch = '';
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    if (batch !== '') pool.append(path, batch);
    batch = '';
  };
  const write = (event: MurmurEvent) => {
    batch += `${JSON.stringify(event)}\n`;
    // A tick that never ends (a swarm on a zero-latency model runs on promise callbacks alone) must not hold every
    // line in one growing string: past this size the batch goes to the pool, whose backlog makes the swarm wait.
    if (batch.length >= BATCH_CHARS) return drain();
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  };
  const offs = EVENT_TYPES.filter((type) => !LEFT_OUT.has(type)).map((type) => bus.on(type, write));
  let closed = false;
  return {
    written: () => {
      drain();
      return pool.written(path);
    },
    close: async () => {
      if (!closed) {
        closed = true;
        for (const off of offs) off();
      }
      drain();
      await pool.written(path);
    },
  };
}
