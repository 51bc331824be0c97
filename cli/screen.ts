// What the person sees while a run goes on: the blessed dashboard on a terminal, plain lines elsewhere,
// nothing with --json. Both are plain subscribers of the bus.
import type { EventBus } from '../host/event-bus.js';
import type { DashboardHandle, ModalPrompt } from '../dashboards/tui.js';

export type ScreenMode = 'dashboard' | 'lines' | 'quiet';

export interface Screen {
  mode: ScreenMode;
  /** A modal question on the dashboard; undefined when the screen cannot ask (not started yet, or fell back). */
  ask?: (prompt: ModalPrompt, signal?: AbortSignal) => Promise<string | undefined>;
  stop(): void;
}

/** A screen made before the engine (its asker needs it) and drawn after, so setup warnings print above it. */
export interface PendingScreen extends Screen {
  start(): Promise<void>;
}

export interface ScreenOptions {
  mode: ScreenMode;
  bus: EventBus;
  title: string;
  model: string;
  env: NodeJS.ProcessEnv;
  onAbort: () => void;
}

export function createScreen(options: ScreenOptions): PendingScreen {
  let started: Screen | undefined;
  let stopped = false;
  const screen: PendingScreen = {
    mode: options.mode,
    async start() {
      if (started || stopped) return;
      started = await startScreen(options);
      if (stopped) started.stop();
    },
    stop() {
      stopped = true;
      started?.stop();
    },
  };
  // Read at prompt time: the dashboard's modal while it runs, nothing before it starts or after it fell back.
  Object.defineProperty(screen, 'ask', { get: () => started?.ask, enumerable: true });
  return screen;
}

export function chooseScreenMode(options: { json: boolean; noDashboard: boolean; env: NodeJS.ProcessEnv }): ScreenMode {
  if (options.json) return 'quiet';
  if (options.noDashboard || !process.stdout.isTTY || !process.stdin.isTTY || options.env.TERM === 'dumb')
    return 'lines';
  return 'dashboard';
}

async function startLines(bus: EventBus, title: string, model: string, env: NodeJS.ProcessEnv): Promise<Screen> {
  const { startLineReporter } = await import('../dashboards/lines.js');
  const reporter = startLineReporter({
    bus,
    out: process.stderr,
    color: process.stderr.isTTY === true,
    env,
    title,
    model,
  });
  return { mode: 'lines', stop: () => reporter.stop() };
}

async function startScreen(options: ScreenOptions): Promise<Screen> {
  const { mode, bus, title, model, env } = options;
  if (mode === 'quiet') {
    // Nothing of the run's progress with --json, but what murmur cannot contain is still said (stdout stays JSON).
    const off = bus.on('log', (event) => {
      if (event.containment) process.stderr.write(`murmur: ${event.level}: ${event.message}\n`);
    });
    return { mode, stop: () => off() };
  }
  if (mode === 'lines') return startLines(bus, title, model, env);
  try {
    const { startDashboard } = await import('../dashboards/tui.js');
    let fallback: Screen | undefined;
    const screen: Screen = { mode, stop: () => undefined };
    const handle: DashboardHandle = await startDashboard({
      bus,
      title,
      model,
      env,
      onAbort: options.onAbort,
      onFailure: (error) => {
        process.stderr.write(`murmur: the dashboard stopped (${error.message}); continuing with plain lines\n`);
        // Questions go to the terminal prompt from now on.
        delete screen.ask;
        void startLines(bus, title, model, env).then((lines) => (fallback = lines));
      },
    });
    screen.ask = (prompt, signal) => handle.ask(prompt, signal);
    screen.stop = () => {
      handle.stop();
      fallback?.stop();
    };
    return screen;
  } catch (error) {
    process.stderr.write(`murmur: cannot draw the dashboard here (${(error as Error).message}); using plain lines\n`);
    return startLines(bus, title, model, env);
  }
}
