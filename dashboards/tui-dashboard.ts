// The running dashboard on an open blessed screen: folds bus events into the snapshot, redraws on a capped
// timer, moves through the table on keys, asks queued questions, and gives the terminal back on stop.
import { performance } from 'node:perf_hooks';
import type { Widgets } from 'blessed';
import type { Clock } from '../orchestrator/clock.js';
import { createWidgets, layoutFrame, type TuiWidgets, type ViewState } from './tui-layout.js';
import type { Blessed, DashboardHandle, DashboardOptions, DashboardStats, ModalPrompt } from './tui-types.js';
import { initialSnapshot, reduce, type Snapshot } from './view-model.js';

/** The signals blessed would exit on (with status 0); the dashboard handles them instead. */
export const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;

interface PendingModal {
  prompt: ModalPrompt;
  resolve: (answer: string | undefined) => void;
  quit?: boolean;
}

export class Dashboard {
  readonly snapshot: Snapshot;
  private readonly widgets: TuiWidgets;
  private readonly view: ViewState = { rows: [], selectedId: undefined, top: 0, detailId: undefined };
  private readonly unsubscribe: () => void;
  private timer: unknown;
  private stopped = false;
  private dirty = true;
  private lastDraw = 0;
  private modals: PendingModal[] = [];
  private aborting = false;
  private readonly renderTimes: number[] = [];
  private readonly stats: DashboardStats;
  private readonly signalHandlers = new Map<string, () => void>();
  private readonly onExit = () => this.stop();

  constructor(
    blessed: Blessed,
    private readonly screen: Widgets.Screen,
    private readonly options: DashboardOptions,
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {
    const now = clock.now();
    this.snapshot = initialSnapshot({
      title: options.title,
      model: options.model,
      now,
      ...(options.limits ? { limits: options.limits } : {}),
    });
    this.stats = { renders: 0, events: 0, peakRendersPerSecond: 0, drawMs: 0, startedAt: now };
    this.widgets = createWidgets(blessed, screen);
    screen.program.hideCursor();
    screen.on('keypress', (ch: string | undefined, key: Widgets.Events.IKeyEventArg | undefined) =>
      this.onKey(ch, key),
    );
    screen.on('resize', () => {
      this.dirty = true;
    });
    this.takeOverSignals();
    process.on('exit', this.onExit);
    this.unsubscribe = options.bus.on('*', (event) => {
      reduce(this.snapshot, event);
      this.stats.events++;
      this.dirty = true;
    });
    this.draw();
    this.schedule();
  }

  handle(): DashboardHandle {
    return {
      stop: () => this.stop(),
      ask: (prompt, signal) => this.ask(prompt, signal),
      stats: () => ({ ...this.stats }),
      snapshot: this.snapshot,
    };
  }

  /**
   * In place of blessed's handlers (which exit with status 0): restore the terminal and re-raise the signal,
   * so the process still dies of it. When the caller listens to the signal, stay out of the way.
   */
  private takeOverSignals(): void {
    for (const signal of SIGNALS) {
      const ours = () => {
        if (process.listeners(signal).length > 1) return;
        this.stop();
        process.kill(process.pid, signal);
      };
      this.signalHandlers.set(signal, ours);
      process.on(signal, ours);
    }
  }

  private schedule(delayMs = this.intervalMs): void {
    const timer = this.clock.setTimeout(() => this.tick(), delayMs);
    (timer as { unref?: () => void } | undefined)?.unref?.();
    this.timer = timer;
  }

  private tick(): void {
    if (this.stopped) return;
    // Timers may fire a little early: frames stay at least one interval apart, so no second holds more than the cap.
    const since = this.clock.now() - this.lastDraw;
    if (since < this.intervalMs) {
      this.schedule(this.intervalMs - since);
      return;
    }
    this.schedule();
    // Redraw on change, and once a second anyway for the clocks.
    if (this.dirty || since >= 1000) this.draw();
  }

  private draw(): void {
    if (this.stopped) return;
    const began = performance.now();
    try {
      layoutFrame(this.widgets, this.view, {
        snapshot: this.snapshot,
        now: this.clock.now(),
        width: this.screen.width,
        height: this.screen.height,
        aborting: this.aborting,
        modal: this.modals[0]?.prompt,
      });
      this.screen.render();
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const now = this.clock.now();
    this.dirty = false;
    this.lastDraw = now;
    this.stats.renders++;
    this.stats.drawMs += performance.now() - began;
    this.renderTimes.push(now);
    while (this.renderTimes.length > 0 && this.renderTimes[0]! <= now - 1000) this.renderTimes.shift();
    this.stats.peakRendersPerSecond = Math.max(this.stats.peakRendersPerSecond, this.renderTimes.length);
  }

  private onKey(ch: string | undefined, key: Widgets.Events.IKeyEventArg | undefined): void {
    if (this.stopped) return;
    const name = key?.full ?? key?.name ?? '';
    const modal = this.modals[0];
    if (modal) {
      if (name === 'escape') this.answer(undefined);
      else if (modal.quit && (ch === 'q' || name === 'C-c')) this.answer('y');
      else if (name === 'C-c') {
        // Ctrl-C always gets through: the open question is dismissed (as with Esc) and the quit question asked.
        this.answer(undefined);
        this.quitKey(name);
      } else {
        const choice = modal.prompt.choices.find((c) => ch !== undefined && c.key.toLowerCase() === ch.toLowerCase());
        if (choice) this.answer(choice.key);
      }
      return;
    }
    if (ch === 'q' || name === 'C-c') {
      this.quitKey(name);
      return;
    }
    if (this.view.detailId !== undefined) {
      if (name === 'escape' || name === 'backspace' || ch === 'h' || name === 'left') this.view.detailId = undefined;
      this.dirty = true;
      return;
    }
    const page = Math.max(1, Number(this.widgets.table.height) - 2);
    if (name === 'up' || ch === 'k') this.move(-1);
    else if (name === 'down' || ch === 'j') this.move(1);
    else if (name === 'pageup') this.move(-page);
    else if (name === 'pagedown' || ch === ' ') this.move(page);
    else if (name === 'home' || ch === 'g') this.move(-Infinity);
    else if (name === 'end' || ch === 'G') this.move(Infinity);
    else if (name === 'enter' || ch === 'l' || name === 'right') {
      if (this.view.selectedId !== undefined) this.view.detailId = this.view.selectedId;
    } else return;
    this.dirty = true;
  }

  /** `q` or Ctrl-C: ask to confirm; once aborting, another Ctrl-C tells the caller again (it may stop harder). */
  private quitKey(name: string): void {
    if (this.aborting) {
      if (name === 'C-c') this.callAbort();
      return;
    }
    this.confirmQuit();
  }

  private move(by: number): void {
    const { rows } = this.view;
    if (rows.length === 0) return;
    const at = Math.max(
      0,
      rows.findIndex((a) => a.id === this.view.selectedId),
    );
    const next = Math.min(
      rows.length - 1,
      Math.max(0, at + (Number.isFinite(by) ? by : by > 0 ? rows.length : -rows.length)),
    );
    this.view.selectedId = rows[next]!.id;
  }

  private confirmQuit(): void {
    const prompt: ModalPrompt = {
      title: 'Abort the run?',
      body: 'Running agents are stopped; finished work is kept.',
      choices: [
        { key: 'y', label: 'yes, abort' },
        { key: 'n', label: 'no, keep going' },
      ],
    };
    // The quit question jumps the queue: the user asked for it just now.
    this.modals.unshift({
      prompt,
      quit: true,
      resolve: (answer) => {
        if (answer === 'y') {
          this.aborting = true;
          this.callAbort();
        }
      },
    });
    this.dirty = true;
  }

  private callAbort(): void {
    try {
      this.options.onAbort();
    } catch (error) {
      process.emitWarning(`murmur: the dashboard's onAbort callback threw: ${String(error)}`);
    }
  }

  private answer(answer: string | undefined): void {
    const modal = this.modals.shift();
    this.dirty = true;
    modal?.resolve(answer);
  }

  ask(prompt: ModalPrompt, signal?: AbortSignal): Promise<string | undefined> {
    if (prompt.choices.length === 0) return Promise.reject(new Error('a dashboard question needs at least one choice'));
    if (this.stopped || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const entry: PendingModal = {
        prompt,
        resolve: (answer) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      const onAbort = () => {
        const index = this.modals.indexOf(entry);
        if (index >= 0) this.modals.splice(index, 1);
        this.dirty = true;
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.modals.push(entry);
      this.dirty = true;
    });
  }

  private fail(error: Error): void {
    this.stop();
    if (this.options.onFailure) this.options.onFailure(error);
    else process.emitWarning(`murmur: the dashboard stopped: ${error.message}`);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    process.removeListener('exit', this.onExit);
    for (const [signal, handler] of this.signalHandlers) process.removeListener(signal, handler);
    for (const modal of this.modals.splice(0)) modal.resolve(undefined);
    try {
      this.screen.destroy();
    } catch {
      // The terminal is gone (a closed pty): nothing left to restore.
    }
  }
}
