// The live dashboard (blessed). A plain subscriber of the event bus: events only fold into the view-model
// snapshot; a timer draws at most 10 times a second, however many events arrive, so a busy swarm is
// never slowed by its screen. blessed is loaded lazily so `murmur --help` does not pay for it.
import { performance } from 'node:perf_hooks';
import type { Widgets } from 'blessed';
import { systemClock, type Clock } from '../orchestrator/clock.js';
import type { EventBus } from '../orchestrator/events.js';
import { FOOTER, esc, renderHeader, renderLog, renderProgress, renderTable, renderTranscript } from './tui-render.js';
import { initialSnapshot, reduce, sortedAgents, type AgentView, type Snapshot, type ViewModelLimits } from './view-model.js';

type Blessed = typeof import('blessed');

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

/** The terminal cannot be driven: the caller should fall back to plain lines. */
export class DashboardUnavailableError extends Error {
  override name = 'DashboardUnavailableError';
}

const FALLBACK_TERMINAL = 'xterm-256color';
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;

export async function startDashboard(options: DashboardOptions): Promise<DashboardHandle> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  const fps = options.maxRedrawsPerSecond ?? 10;
  if (!(fps > 0 && fps <= 10)) throw new RangeError(`maxRedrawsPerSecond must be above 0 and at most 10, got ${fps}`);
  if (!output.isTTY) throw new DashboardUnavailableError('the dashboard needs a terminal, but the output is not a TTY; use plain lines (--no-dashboard)');
  if (!input.isTTY) throw new DashboardUnavailableError('the dashboard needs a terminal for keys, but the input is not a TTY; use plain lines (--no-dashboard)');
  const term = env.TERM ?? '';
  if (term === '' || term === 'dumb') {
    throw new DashboardUnavailableError(`the terminal type ${JSON.stringify(term)} cannot draw a dashboard; use plain lines (--no-dashboard)`);
  }

  let blessed: Blessed;
  try {
    const loaded = (await import('blessed')) as Blessed & { default?: Blessed };
    blessed = loaded.default ?? loaded;
  } catch (error) {
    throw new DashboardUnavailableError(`cannot load blessed for the dashboard: ${(error as Error).message}`);
  }
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const screen = openScreen(blessed, input, output, term);
  // blessed exits with status 0 on these signals when nobody else listens: take its handlers back out.
  for (const signal of SIGNALS) {
    for (const handler of process.listeners(signal)) if (!before.get(signal)!.has(handler)) process.removeListener(signal, handler as () => void);
  }
  try {
    return new Dashboard(blessed, screen, options, clock, 1000 / fps).handle();
  } catch (error) {
    screen.destroy();
    throw new DashboardUnavailableError(`blessed cannot draw the dashboard on this terminal (TERM=${term}): ${(error as Error).message}`);
  }
}

/**
 * Opens a blessed screen. blessed cannot parse some terminfo entries (screen-256color, its known error):
 * it prints the error and carries on half-working. Those, and any throw, get a second try with an xterm
 * description; if that fails too, the caller falls back to plain lines.
 */
function openScreen(blessed: Blessed, input: NodeJS.ReadStream, output: NodeJS.WriteStream, term: string): Widgets.Screen {
  const attempts = term === 'screen-256color' ? [FALLBACK_TERMINAL] : [undefined, FALLBACK_TERMINAL];
  const problems: string[] = [];
  for (const terminal of attempts) {
    const reported: string[] = [];
    const originalError = console.error;
    console.error = (...args: unknown[]) => void reported.push(args.map(String).join(' '));
    let screen: Widgets.Screen | undefined;
    try {
      screen = blessed.screen({
        input,
        output,
        ...(terminal ? { terminal } : {}),
        smartCSR: true,
        fullUnicode: true,
        autoPadding: false,
        warnings: false,
        title: 'murmur',
      });
    } catch (error) {
      problems.push(`${terminal ?? term}: ${(error as Error).message}`);
    } finally {
      console.error = originalError;
    }
    const terminfoError = reported.find((line) => line.includes('Error on'));
    if (screen && !terminfoError) return withoutAlternateCharset(screen);
    if (screen) {
      problems.push(`${terminal ?? term}: ${terminfoError!.trim()}`);
      screen.destroy();
    }
  }
  throw new DashboardUnavailableError(`blessed cannot drive this terminal (TERM=${term}): ${problems.join('; ')}`);
}

/**
 * Frames drawn as Unicode box characters, never through the terminal's alternate character set. blessed
 * switches to ACS with the terminfo's smacs, which breaks in tmux and screen: tmux-256color's entry is one blessed
 * cannot parse (so it borrows xterm's `ESC ( 0`, which tmux in UTF-8 mode ignores), and screen's `^N` needs an
 * enacs nobody sends; either way the border shows as `qqqq`. With ACS marked broken blessed writes `─` as is on
 * a UTF-8 terminal and plain `-`/`|` elsewhere (its ASCII fallback when the locale is not UTF-8).
 */
function withoutAlternateCharset(screen: Widgets.Screen): Widgets.Screen {
  (screen as unknown as { tput: { brokenACS: boolean } }).tput.brokenACS = true;
  return screen;
}

interface PendingModal {
  prompt: ModalPrompt;
  resolve: (answer: string | undefined) => void;
  quit?: boolean;
}

class Dashboard {
  readonly snapshot: Snapshot;
  private readonly header: Widgets.BoxElement;
  private readonly bar: Widgets.BoxElement;
  private readonly table: Widgets.BoxElement;
  private readonly logBox: Widgets.BoxElement;
  private readonly footer: Widgets.BoxElement;
  private readonly transcript: Widgets.BoxElement;
  private readonly modal: Widgets.BoxElement;
  private readonly unsubscribe: () => void;
  private timer: unknown;
  private stopped = false;
  private dirty = true;
  private lastDraw = 0;
  private rows: AgentView[] = [];
  private selectedId: string | undefined;
  private top = 0;
  private detailId: string | undefined;
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
    this.snapshot = initialSnapshot({ title: options.title, model: options.model, now, ...(options.limits ? { limits: options.limits } : {}) });
    this.stats = { renders: 0, events: 0, peakRendersPerSecond: 0, drawMs: 0, startedAt: now };
    const box = (extra: Widgets.BoxOptions) => blessed.box({ parent: screen, tags: true, wrap: false, left: 0, width: '100%', ...extra });
    this.header = box({ top: 0, height: 2 });
    this.bar = box({ top: 2, height: 2 });
    this.table = box({ top: 4, height: 1 });
    this.logBox = box({ top: 5, height: 1 });
    this.footer = box({ bottom: 0, height: 1, style: { fg: 'gray' } });
    this.transcript = box({ top: 4, height: 1, hidden: true });
    this.modal = blessed.box({
      parent: screen,
      tags: true,
      top: 'center',
      left: 'center',
      width: '60%',
      height: 7,
      border: { type: 'line' },
      style: { border: { fg: 'yellow' } },
      hidden: true,
    });
    screen.program.hideCursor();
    screen.on('keypress', (ch: string | undefined, key: Widgets.Events.IKeyEventArg | undefined) => this.onKey(ch, key));
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
      this.layout();
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

  private layout(): void {
    const s = this.snapshot;
    const now = this.clock.now();
    const width = Math.max(20, Number(this.screen.width) || 80);
    const height = Math.max(8, Number(this.screen.height) || 24);
    const logHeight = height >= 30 ? 8 : height >= 20 ? 5 : height >= 14 ? 3 : 0;
    const tableHeight = Math.max(2, height - 4 - logHeight - 1);

    this.header.setContent(renderHeader(s, now, width, { aborting: this.aborting }).join('\n'));
    this.bar.setContent(renderProgress(s, width).join('\n'));

    this.rows = sortedAgents(s);
    let selected = this.selectedId === undefined ? -1 : this.rows.findIndex((a) => a.id === this.selectedId);
    if (selected < 0 && this.rows.length > 0) selected = Math.min(Math.max(0, this.top), this.rows.length - 1);
    this.selectedId = this.rows[selected]?.id;

    if (this.detailId !== undefined) {
      this.table.hide();
      this.logBox.hide();
      this.transcript.show();
      this.transcript.top = 4;
      this.transcript.height = height - 5;
      this.transcript.setContent(renderTranscript(s.agents.get(this.detailId), now, height - 5, width).join('\n'));
    } else {
      this.transcript.hide();
      this.table.show();
      this.table.top = 4;
      this.table.height = tableHeight;
      const view = renderTable(this.rows, selected, this.top, tableHeight, width, now);
      this.top = view.top;
      this.table.setContent(view.lines.join('\n'));
      if (logHeight > 0) {
        this.logBox.show();
        this.logBox.top = 4 + tableHeight;
        this.logBox.height = logHeight;
        const title = `{gray-fg}${'─'.repeat(2)} log ${'─'.repeat(Math.max(0, width - 8))}{/gray-fg}`;
        this.logBox.setContent([title, ...renderLog(s.log.tail(logHeight - 1), s.startedAt, logHeight - 1, width)].join('\n'));
      } else this.logBox.hide();
    }
    this.footer.setContent(esc(this.rows.length > tableHeight - 1 ? `${FOOTER} · ${selected + 1}/${this.rows.length}` : FOOTER));

    const modal = this.modals[0];
    if (modal) {
      const choices = modal.prompt.choices.map((c) => `{bold}${esc(c.key)}{/bold} ${esc(c.label)}`).join('   ');
      const body = modal.prompt.body ? esc(modal.prompt.body) : '';
      const lines = [`{bold}${esc(modal.prompt.title)}{/bold}`, body, '', `${choices}   {gray-fg}Esc cancel{/gray-fg}`];
      this.modal.height = Math.min(height - 2, lines.length + 2 + Math.floor(body.length / Math.max(10, width * 0.6 - 4)));
      this.modal.setContent(lines.join('\n'));
      this.modal.show();
      this.modal.setFront();
    } else this.modal.hide();
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
    if (this.detailId !== undefined) {
      if (name === 'escape' || name === 'backspace' || ch === 'h' || name === 'left') this.detailId = undefined;
      this.dirty = true;
      return;
    }
    const page = Math.max(1, Number(this.table.height) - 2);
    if (name === 'up' || ch === 'k') this.move(-1);
    else if (name === 'down' || ch === 'j') this.move(1);
    else if (name === 'pageup') this.move(-page);
    else if (name === 'pagedown' || ch === ' ') this.move(page);
    else if (name === 'home' || ch === 'g') this.move(-Infinity);
    else if (name === 'end' || ch === 'G') this.move(Infinity);
    else if (name === 'enter' || ch === 'l' || name === 'right') {
      if (this.selectedId !== undefined) this.detailId = this.selectedId;
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
    if (this.rows.length === 0) return;
    const at = Math.max(0, this.rows.findIndex((a) => a.id === this.selectedId));
    const next = Math.min(this.rows.length - 1, Math.max(0, at + (Number.isFinite(by) ? by : by > 0 ? this.rows.length : -this.rows.length)));
    this.selectedId = this.rows[next]!.id;
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
