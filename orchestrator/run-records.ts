// A run's records in its session: each agent's transcript, the session's events.jsonl (written through the
// append pool), a big swarm's timeline file (timeline-recorder.ts) and state.json (the session store's). What the run's status needs from them: whether everything was
// written, and if not, a reason naming the first file that could not be and the system's error — so a run whose
// records are incomplete never reports "completed". A loss is also told at once, as a `log` event.
import type { EventBus } from './events.js';
import type { SessionStore } from './session.js';
import { sharedAppendPool, type AppendPool, type WriteLoss } from './append-pool.js';
import { TranscriptWriter } from './transcript-writer.js';
import { recordSessionEvents, type SessionEventsWriter } from './session-events.js';
import { recordSwarmTimelines, type TimelineRecorder } from './timeline-recorder.js';

/** The run's reason when files are incomplete: the first one, its error, and how many more. */
export function recordsLossReason(losses: readonly WriteLoss[], stateLoss?: string): string | undefined {
  const parts: string[] = [];
  const [first] = losses;
  if (first) {
    const more = losses.length > 1 ? ` (and ${losses.length - 1} more file(s) of the session)` : '';
    parts.push(`${first.path} could not be written to the end (${first.error})${more}`);
  }
  if (stateLoss !== undefined) parts.push(stateLoss);
  return parts.length > 0 ? `data is missing from the session: ${parts.join('; ')}` : undefined;
}

export class RunRecords {
  readonly transcripts: TranscriptWriter;
  private readonly events: SessionEventsWriter;
  private readonly timelines: TimelineRecorder;
  private readonly stopWatching: () => void;
  /** Losses the run's status already reports (through `lost`): close speaks only of later ones. */
  private reported = 0;

  constructor(
    bus: EventBus,
    private readonly session: SessionStore,
    private readonly pool: AppendPool = sharedAppendPool(),
  ) {
    this.transcripts = new TranscriptWriter((agentId) => session.transcriptPath(agentId), pool, session.transcriptPack);
    this.transcripts.subscribe(bus);
    this.events = recordSessionEvents(bus, session.dir, pool);
    this.timelines = recordSwarmTimelines(bus, session.dir);
    // The first loss is told at once (a screen shows it); the run's end counts them all.
    this.stopWatching = pool.watchLosses(session.dir, (loss) => {
      this.stopWatching();
      bus.emit({
        type: 'log',
        level: 'error',
        message: `${loss.path} could not be written to the end (${loss.error}): data is missing, and the run will end failed`,
      });
    });
  }

  /** Why an agent's transcript is incomplete, if it is (known once its lines are written: after `lost`). */
  transcriptLoss(agentId: string): string | undefined {
    return this.transcripts.lossOf(agentId);
  }

  /**
   * Waits for everything written so far (transcripts, events, task logs); why the records are incomplete, if they
   * are. Each of `agents` whose transcript is incomplete is failed, with a reason naming the file: an agent's run
   * never waits for its disk, so this is where its loss reaches its status.
   */
  /** Undefined while the records keep up; else resolves once what waits to be written is back under the limit. */
  room(): Promise<void> | undefined {
    return this.pool.room();
  }

  async lost(agents: {
    ids(): Iterable<string>;
    markRecordLost(agentId: string, reason: string): void;
  }): Promise<string | undefined> {
    await Promise.all([this.transcripts.flush(), this.events.written()]);
    await this.pool.settledUnder(this.session.dir);
    const losses = this.pool.lossesUnder(this.session.dir);
    this.reported = losses.length;
    if (losses.length > 0) {
      for (const agentId of agents.ids()) {
        const reason = this.transcripts.lossOf(agentId);
        if (reason !== undefined) agents.markRecordLost(agentId, reason);
      }
    }
    return recordsLossReason(losses, this.session.stateLoss);
  }

  /**
   * Stops recording events and waits for every line; what was lost since the run's status was decided (`lost`), if
   * anything (the last events, say). The pool then forgets this session's losses.
   */
  async close(): Promise<string | undefined> {
    this.timelines.close();
    await Promise.all([this.transcripts.flush(), this.events.close()]);
    await this.pool.settledUnder(this.session.dir);
    this.stopWatching();
    const losses = this.pool.lossesUnder(this.session.dir);
    this.pool.forgetUnder(this.session.dir);
    return losses.length > this.reported ? recordsLossReason(losses.slice(this.reported)) : undefined;
  }
}
