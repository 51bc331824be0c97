// Transcripts on disk, written by a subscriber of the event bus (beside the JSONL log of events-log.ts): every
// `message` event is appended to `agents/<agentId>/transcript.jsonl` of the session, one JSON message a line, in
// conversation order. Streams buffer the writes, so a slow disk never stalls the loop; an agent's stream closes
// when its run ends (10,000 swarm items must not hold 10,000 files open) and reopens if it runs again.
// The agent's folder is made synchronously on its first line: an asynchronous mkdir was tried and let a 10,000-item
// swarm run ahead of its disk (peak RSS +30 MB), while this keeps the writes in step with the work.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { EventBus } from './events.js';
import type { Message } from './types.js';

export class TranscriptWriter {
  private readonly streams = new Map<string, WriteStream>();
  /**
   * Agents whose stream is still closing: lines for them wait here, because a second stream on the same file could
   * land its writes before the first one's (two file descriptors, no order between them).
   */
  private readonly closing = new Map<string, { pending: string[]; done: Promise<void> }>();

  /** `pathOf` names an agent's transcript file (SessionStore.transcriptPath). */
  constructor(private readonly pathOf: (agentId: string) => string) {}

  /** Appends one message to the agent's transcript (ordered, buffered by the stream). */
  append(agentId: string, message: Message): void {
    const line = `${JSON.stringify(message)}\n`;
    const stream = this.streams.get(agentId);
    if (stream) stream.write(line);
    else {
      const waiting = this.closing.get(agentId);
      if (waiting) waiting.pending.push(line);
      else this.open(agentId).write(line);
    }
  }

  /** Closes an agent's stream (what was written still reaches the file); the next append reopens it. */
  close(agentId: string): void {
    const stream = this.streams.get(agentId);
    if (!stream) return;
    this.streams.delete(agentId);
    const pending: string[] = [];
    const done = new Promise<void>((resolve) =>
      stream.end(() => {
        this.closing.delete(agentId);
        if (pending.length > 0) {
          const reopened = this.open(agentId);
          for (const line of pending) reopened.write(line);
        }
        resolve();
      }),
    );
    this.closing.set(agentId, { pending, done });
  }

  /** Closes every stream and resolves once everything written is on disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.closing.values()].map((waiting) => waiting.done));
    const ending = [...this.streams.values()].map((stream) => new Promise<void>((done) => stream.end(done)));
    this.streams.clear();
    await Promise.all(ending);
  }

  private open(agentId: string): WriteStream {
    const path = this.pathOf(agentId);
    mkdirSync(dirname(path), { recursive: true });
    const stream = createWriteStream(path, { flags: 'a' });
    stream.on('error', (error) =>
      process.emitWarning(`murmur: cannot write the transcript of ${agentId}: ${error.message}`),
    );
    this.streams.set(agentId, stream);
    return stream;
  }

  /** Writes every message of the bus's agents; the returned function stops listening. */
  subscribe(bus: EventBus): () => void {
    const offMessage = bus.on('message', (event) => this.append(event.agentId, event.message));
    const offEnd = bus.on('agent.end', (event) => this.close(event.agentId));
    return () => {
      offMessage();
      offEnd();
    };
  }
}
