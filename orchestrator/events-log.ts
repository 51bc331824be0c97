// `--events FILE`: every event as one JSON line. Buffered through a stream so a slow disk never stalls the loop.
import { createWriteStream, openSync } from 'node:fs';
import type { EventBus, EventType } from './events.js';

/** Streamed text and whole messages stay out: transcripts on disk already hold them. */
const SKIPPED: ReadonlySet<EventType> = new Set(['message', 'message.delta']);

export interface EventLog {
  close(): Promise<void>;
}

/** Opens the file at once, so a bad path is an error before anything runs (it throws with the system's code). */
export function writeEventLog(bus: EventBus, path: string): EventLog {
  const stream = createWriteStream(path, { fd: openSync(path, 'w') });
  let failed: Error | undefined;
  stream.on('error', (error) => {
    failed = error;
  });
  const off = bus.on('*', (event) => {
    if (failed || SKIPPED.has(event.type)) return;
    stream.write(`${JSON.stringify(event)}\n`);
  });
  return {
    close: () =>
      new Promise((resolve, reject) => {
        off();
        if (failed) return reject(new Error(`cannot write the event log ${path}: ${failed.message}`));
        stream.end(() => resolve());
      }),
  };
}
