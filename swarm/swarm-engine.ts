// The swarm's one port onto the run it belongs to (the engine, seen from swarm/): the few facts a swarm reads, its
// items' agents (start one, wait for it), and where its usage, state and events go. host/swarm-engine.ts implements
// it over the Engine; nothing else of the engine is visible from swarm/.
import type { MurmurConfig } from '../orchestrator/config.js';
import type { EventInput } from '../orchestrator/events.js';
import type { Usage } from '../orchestrator/types.js';
import type { AgentProfile } from '../roles/profile.js';
import type { SavingSwarm, SwarmItemRecord } from './saved-swarm.js';
import type { SwarmAgents } from './swarm-agents.js';

// The agents' half of the port lives in swarm-agents.ts (verify rounds and the local launcher need only it).
export type { SwarmAgent, SwarmAgents, SwarmSpawn } from './swarm-agents.js';

/** A swarm's ended items as the settled log holds them. */
export interface SettledItems {
  /** Item `index`'s record as last appended, or undefined when the log does not hold it (`looking`: not kept). */
  get(index: number, looking?: boolean): unknown;
  /** Lines were appended since (the next read looks for them). */
  grown(): void;
}

/** A swarm's items as queued, kept in a file of the session (orchestrator/queued-items.ts) and read back by index. */
export interface QueuedItemsSource {
  /** What a snapshot names: the file (in the session folder) and how many items the swarm has. */
  readonly ref: { file: string; count: number };
  record(index: number): SwarmItemRecord;
  /** Lets go of the file (a later read opens it again). */
  close(): void;
}

export interface SwarmEngine extends SwarmAgents {
  /** The workspace: items work there (or in worktrees of its repository). */
  readonly cwd: string;
  /** Names this run: its session's id, else one made up for it (worktree folders, queue names). */
  readonly runId: string;
  /** murmur.toml as loaded: `[swarm]` settings and the concurrency cap. */
  readonly config: MurmurConfig;
  /** murmur's state folder (`.murmur` under the workspace, or MURMUR_HOME). */
  readonly stateHome: string;
  /** Where this run keeps its files (worktrees, kept patches): its session's folder, else one of its own. */
  readonly runHome: string;
  /** The agents' shells run in the sandbox (isolated items are then checked after their agent). */
  readonly sandboxed: boolean;
  /** The run's spawn cap, and how many agents it has started so far (swarm items count against it). */
  spawnRoom(): { limit: number; spawned: number };
  /**
   * The profile items of type `type` run as: for a parent, what its agent tool would give it (allowed types
   * only); without one, any role or defined agent. An error says what was wrong and what is allowed. Never throws.
   */
  profile(type: string, parentId?: string): AgentProfile | string;
  /** The run's usage so far (a copy). */
  usage(): Usage;
  /** Usage spent elsewhere for this run (a queue worker's) joins the run's. Never throws. */
  addUsage(usage: Usage): void;
  /**
   * The swarm's state, to keep: a swarm without a parent is the session's own work and is saved as its swarm
   * (what `murmur resume` finishes); a swarm under an agent is saved through its agents. Called with the whole
   * state each time, the newest last. Never throws (a failed write is the session's to report).
   */
  persist(state: SavingSwarm): void;
  /**
   * One item's change, kept at once (before its event is emitted): the session's own swarm appends it to the
   * session's journal, so what the events announce is what a resume reads; a swarm under an agent keeps nothing
   * here (its items are saved through their agents). Never throws.
   */
  journal(swarmId: string, index: number, record: SwarmItemRecord): void;
  /**
   * The session's settled log, read by item (the session's own swarm only): an ended item leaves the runner's
   * memory once the log holds its record, and is read back from there.
   */
  settledItems?(swarmId: string): SettledItems;
  /**
   * Keeps the swarm's items as queued (`records`, one per item in index order) in a file of the session (the
   * session's own swarm only), read back from there by index; undefined when it cannot (the swarm keeps them
   * listed). Never throws.
   */
  queueItems?(swarmId: string, records: Iterable<SwarmItemRecord>, count: number): QueuedItemsSource | undefined;
  /** Publishes a swarm event on the run's bus (the dashboards, the events file). Never throws. */
  emit(event: EventInput): void;
  /**
   * Undefined while the run's files (events, transcripts, journal) keep up; else resolves once they have caught up
   * enough. An item launches after it, so a swarm faster than its disk holds its backlog, not every item's lines.
   */
  writeRoom?(): Promise<void> | undefined;
  /**
   * A new swarm's id (`s-1`, `s-2`, … in this run). Given the id of a restored swarm, returns it and numbers later
   * swarms past it. Never throws.
   */
  nextSwarmId(restored?: string): string;
}
