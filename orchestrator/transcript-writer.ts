// Transcripts on disk, written by a subscriber of the event bus (beside the JSONL log of events-log.ts): every
// `message` event is appended, one JSON message a line, in conversation order — a swarm item's agent's to the
// session's pack (transcript-pack.ts: one file for all items), any other's to `agents/<agentId>/transcript.jsonl`.
// The lines go through the append pool (append-pool.ts): a slow disk never stalls the loop. A transcript that could
// not be written to the end is a loss the run reports (run-records.ts): its agent ends failed, naming the file.
import type { EventBus } from './events.js';
import type { Message } from './types.js';
import { sharedAppendPool, type AppendPool, type WriteLoss } from './append-pool.js';
import { packLine } from './transcript-pack.js';

/** The reason an agent whose transcript lost lines gives (it names the file and the system's error). */
export function transcriptLossReason(loss: WriteLoss): string {
  return `its transcript ${loss.path} could not be written to the end (${loss.error})`;
}

export class TranscriptWriter {
  /** Files with lines being written: flush waits for these. */
  private readonly unsettled = new Set<string>();
  /** Lines appended to the pack, and how many of them are known to be written. */
  private packed = 0;
  private packWritten = 0;
  /**
   * Agents whose last pack line is not known to be written yet, with its number, oldest first: only these can
   * lose lines, so finished items leave nothing here.
   */
  private readonly unconfirmed = new Map<string, number>();
  private packLoss: WriteLoss | undefined;
  private packWatch: Promise<void> | undefined;

  /** `pathOf` names an agent's own transcript file (SessionStore.transcriptPath); `pack`, the swarm items' file. */
  constructor(
    private readonly pathOf: (agentId: string) => string,
    private readonly pool: AppendPool = sharedAppendPool(),
    private readonly pack?: string,
  ) {}

  /** Appends one message to the agent's transcript (ordered; written by the pool). */
  append(agentId: string, message: Message, swarmId?: string): void {
    if (swarmId !== undefined && this.pack !== undefined) return this.appendPacked(agentId, message, this.pack);
    const path = this.pathOf(agentId);
    const starting = !this.pool.busy(path);
    this.pool.append(path, `${JSON.stringify(message)}\n`);
    if (starting && this.pool.busy(path) && !this.unsettled.has(path)) {
      this.unsettled.add(path);
      void this.settle(path);
    }
  }

  /** Leaves `unsettled` once the file has nothing left to write. */
  private async settle(path: string): Promise<void> {
    while (this.pool.busy(path)) await this.pool.written(path);
    this.unsettled.delete(path);
  }

  private appendPacked(agentId: string, message: Message, pack: string): void {
    this.pool.append(pack, packLine(agentId, message));
    this.unconfirmed.delete(agentId);
    this.unconfirmed.set(agentId, ++this.packed);
    this.packWatch ??= this.watchPack(pack).finally(() => (this.packWatch = undefined));
  }

  /** Confirms pack lines as the pool writes them, until every line is written or the pack is lost. */
  private async watchPack(pack: string): Promise<void> {
    while (this.packWritten < this.packed && !this.packLoss) {
      // Everything appended before `written` is asked for is written when it resolves without a loss.
      const upTo = this.packed;
      const loss = await this.pool.written(pack);
      if (loss) this.packLoss = loss;
      else this.confirm(upTo);
    }
  }

  private confirm(upTo: number): void {
    this.packWritten = upTo;
    for (const [agentId, line] of this.unconfirmed) {
      if (line > upTo) break;
      this.unconfirmed.delete(agentId);
    }
  }

  /** Why the agent's transcript is incomplete, if it is (known once its lines are written: see flush). */
  lossOf(agentId: string): string | undefined {
    if (this.packLoss && this.unconfirmed.has(agentId)) return transcriptLossReason(this.packLoss);
    const loss = this.pool.lossOf(this.pathOf(agentId));
    return loss ? transcriptLossReason(loss) : undefined;
  }

  /** Resolves once every line appended so far is written (or lost). */
  async flush(): Promise<void> {
    while (this.unsettled.size > 0 || this.packWatch)
      await Promise.all([...[...this.unsettled].map((path) => this.pool.written(path)), this.packWatch]);
  }

  /** Writes every message of the bus's agents; the returned function stops listening. */
  subscribe(bus: EventBus): () => void {
    return bus.on('message', (event) => this.append(event.agentId, event.message, event.swarmId));
  }
}
