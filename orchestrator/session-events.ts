// Every session keeps its own event stream on disk (written for every host: the command line, the MCP server, the
// library): `sessions/<id>/events.jsonl`, the same lines as `--events`
// (message and message.delta stay in the transcripts, tool.update's streamed output is left out too). The web
// console tails it for a live session and folds it for a finished one. Appended (a resumed session goes on in
// the same file) through a buffered stream, so the loop never waits for the disk.
import { createWriteStream, openSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES, NOT_IN_EVENT_LOG, type EventBus, type EventType, type MurmurEvent } from './events.js';

export const SESSION_EVENTS_FILE = 'events.jsonl';

const LEFT_OUT: ReadonlySet<EventType> = new Set<EventType>([...NOT_IN_EVENT_LOG, 'tool.update']);

export interface SessionEventsWriter {
  close(): Promise<void>;
}

/** Subscribes to the bus and appends each event to the session's events.jsonl; a disk error stops the writing, never the run. */
export function recordSessionEvents(bus: EventBus, sessionDir: string): SessionEventsWriter {
  const path = join(sessionDir, SESSION_EVENTS_FILE);
  let failed = false;
  let stream: ReturnType<typeof createWriteStream> | undefined;
  try {
    stream = createWriteStream(path, { fd: openSync(path, 'a') });
    stream.on('error', () => {
      failed = true;
    });
  } catch {
    failed = true;
  }
  // Lines of one tick go to the stream as one chunk: a 10,000-item swarm on a fast model emits far faster than a
  // disk takes single lines, and each buffered chunk costs more than its text.
  let batch = '';
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    if (!failed && batch !== '') stream?.write(batch);
    batch = '';
  };
  const write = (event: MurmurEvent) => {
    if (failed) return;
    batch += `${JSON.stringify(event)}\n`;
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  };
  const offs = EVENT_TYPES.filter((type) => !LEFT_OUT.has(type)).map((type) => bus.on(type, write));
  let closed = false;
  return {
    close: () =>
      new Promise((resolve) => {
        if (closed) return resolve();
        closed = true;
        for (const off of offs) off();
        drain();
        if (!stream || failed) return resolve();
        stream.end(() => resolve());
      }),
  };
}
