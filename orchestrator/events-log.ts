// `--events FILE`: every event as one JSON line. Buffered through a stream so a slow disk never stalls the loop.
import { createWriteStream, openSync } from 'node:fs';
import { EVENT_TYPES, NOT_IN_EVENT_LOG, type EventBus, type MurmurEvent } from './events.js';

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
  const write = (event: MurmurEvent) => {
    if (!failed) stream.write(`${JSON.stringify(event)}\n`);
  };
  // One subscription per logged type, not '*': the loop then never builds the events this log leaves out.
  const offs = EVENT_TYPES.filter((type) => !NOT_IN_EVENT_LOG.has(type)).map((type) => bus.on(type, write));
  const off = () => {
    for (const unsubscribe of offs) unsubscribe();
  };
  return {
    close: () =>
      new Promise((resolve, reject) => {
        off();
        if (failed) return reject(new Error(`cannot write the event log ${path}: ${failed.message}`));
        stream.end(() => resolve());
      }),
  };
}
