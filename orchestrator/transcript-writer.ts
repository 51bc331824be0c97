// Transcripts on disk, written by a subscriber of the event bus (beside the JSONL log of events-log.ts): every
// `message` event is appended to `agents/<agentId>/transcript.jsonl` of the session, one JSON message a line, in
// conversation order. The lines go through the append pool (append-pool.ts): a slow disk never stalls the loop and
// 10,000 swarm items never hold 10,000 files open. A transcript that could not be written to the end is a loss the
// run reports (run-records.ts): its agent ends failed, naming the file and the error.
import type { EventBus } from './events.js';
import type { Message } from './types.js';
import { sharedAppendPool, type AppendPool, type WriteLoss } from './append-pool.js';

/** The reason an agent whose transcript lost lines gives (it names the file and the system's error). */
export function transcriptLossReason(loss: WriteLoss): string {
  return `its transcript ${loss.path} could not be written to the end (${loss.error})`;
}

export class TranscriptWriter {
  /** Files with lines being written: flush waits for these. */
  private readonly unsettled = new Set<string>();

  /** `pathOf` names an agent's transcript file (SessionStore.transcriptPath). */
  constructor(
    private readonly pathOf: (agentId: string) => string,
    private readonly pool: AppendPool = sharedAppendPool(),
  ) {}

  /** Appends one message to the agent's transcript (ordered; written by the pool). */
  append(agentId: string, message: Message): void {
    const path = this.pathOf(agentId);
    const starting = !this.pool.busy(path);
    this.pool.append(path, `${JSON.stringify(message)}\n`);
    if (starting && this.pool.busy(path) && !this.unsettled.has(path)) {
      this.unsettled.add(path);
      void this.pool.written(path).then(() => {
        if (!this.pool.busy(path)) this.unsettled.delete(path);
      });
    }
  }

  /** Why the agent's transcript is incomplete, if it is (known once its lines are written: see flush). */
  lossOf(agentId: string): string | undefined {
    const loss = this.pool.lossOf(this.pathOf(agentId));
    return loss ? transcriptLossReason(loss) : undefined;
  }

  /** Resolves once every line appended so far is written (or lost). */
  async flush(): Promise<void> {
    while (this.unsettled.size > 0) await Promise.all([...this.unsettled].map((path) => this.pool.written(path)));
  }

  /** Writes every message of the bus's agents; the returned function stops listening. */
  subscribe(bus: EventBus): () => void {
    return bus.on('message', (event) => this.append(event.agentId, event.message));
  }
}
