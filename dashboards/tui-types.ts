// The terminal dashboard's API types (what startDashboard takes and hands back, the questions it asks) and the
// blessed module's type, shared by tui.ts, tui-dashboard.ts and tui-layout.ts.
import type { Clock } from '../orchestrator/clock.js';
import type { EventBus } from '../orchestrator/events.js';
import type { Snapshot, ViewModelLimits } from './view-model.js';

/** The blessed module, loaded lazily by tui.ts. */
export type Blessed = typeof import('blessed');

export interface DashboardOptions {
  bus: EventBus;
  /** The run's task (or swarm description) until a run.start event says otherwise. */
  title: string;
  model: string;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
  clock?: Clock;
  /** Called once the user confirmed `q` or Ctrl-C: the caller aborts the run (finished work is kept). */
  onAbort: () => void;
  /** Called when drawing fails mid-run; the dashboard has stopped itself, the caller may switch to plain lines. */
  onFailure?: (error: Error) => void;
  /** At most 10 (the default). */
  maxRedrawsPerSecond?: number;
  limits?: Partial<ViewModelLimits>;
  /** For TERM; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface ModalChoice {
  /** The key that picks this choice (one character). */
  key: string;
  label: string;
}

export interface ModalPrompt {
  title: string;
  body?: string;
  choices: readonly ModalChoice[];
}

export interface DashboardStats {
  /** Frames drawn. */
  renders: number;
  /** Events folded into the snapshot. */
  events: number;
  /** The most frames drawn within any one second. */
  peakRendersPerSecond: number;
  /** Milliseconds spent laying out and drawing frames, in all. */
  drawMs: number;
  startedAt: number;
}

export interface DashboardHandle {
  /** Unsubscribes, stops drawing and restores the terminal. Safe to call twice. */
  stop(): void;
  /**
   * Shows a modal question (a permission prompt…) and resolves with the key of the chosen answer, or
   * undefined when dismissed with Esc, aborted, or the dashboard stopped. Questions queue up.
   */
  ask(prompt: ModalPrompt, signal?: AbortSignal): Promise<string | undefined>;
  stats(): DashboardStats;
  readonly snapshot: Snapshot;
}
