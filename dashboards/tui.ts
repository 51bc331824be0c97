// The live dashboard (blessed). A plain subscriber of the event bus: events only fold into the view-model
// snapshot; a timer draws at most 10 times a second, however many events arrive, so a busy swarm is
// never slowed by its screen. blessed is loaded lazily so `murmur --help` does not pay for it.
// Here: the dashboard's API and opening the terminal; tui-dashboard.ts runs it, tui-layout.ts lays out its frames,
// tui-types.ts holds the API's types.
import type { Widgets } from 'blessed';
import { systemClock } from '../orchestrator/clock.js';
import { Dashboard, SIGNALS } from './tui-dashboard.js';
import type { Blessed, DashboardHandle, DashboardOptions } from './tui-types.js';

// The dashboard's API types live in tui-types.ts (the running dashboard and its layout read them too).
export type { DashboardHandle, DashboardOptions, DashboardStats, ModalChoice, ModalPrompt } from './tui-types.js';

/** The terminal cannot be driven: the caller should fall back to plain lines. */
export class DashboardUnavailableError extends Error {
  override name = 'DashboardUnavailableError';
}

const FALLBACK_TERMINAL = 'xterm-256color';

export async function startDashboard(options: DashboardOptions): Promise<DashboardHandle> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  const fps = options.maxRedrawsPerSecond ?? 10;
  if (!(fps > 0 && fps <= 10)) throw new RangeError(`maxRedrawsPerSecond must be above 0 and at most 10, got ${fps}`);
  if (!output.isTTY)
    throw new DashboardUnavailableError(
      'the dashboard needs a terminal, but the output is not a TTY; use plain lines (--no-dashboard)',
    );
  if (!input.isTTY)
    throw new DashboardUnavailableError(
      'the dashboard needs a terminal for keys, but the input is not a TTY; use plain lines (--no-dashboard)',
    );
  const term = env.TERM ?? '';
  if (term === '' || term === 'dumb') {
    throw new DashboardUnavailableError(
      `the terminal type ${JSON.stringify(term)} cannot draw a dashboard; use plain lines (--no-dashboard)`,
    );
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
    for (const handler of process.listeners(signal))
      if (!before.get(signal)!.has(handler)) process.removeListener(signal, handler as () => void);
  }
  try {
    return new Dashboard(blessed, screen, options, clock, 1000 / fps).handle();
  } catch (error) {
    screen.destroy();
    throw new DashboardUnavailableError(
      `blessed cannot draw the dashboard on this terminal (TERM=${term}): ${(error as Error).message}`,
    );
  }
}

/**
 * Opens a blessed screen. blessed cannot parse some terminfo entries (screen-256color, its known error):
 * it prints the error and carries on half-working. Those, and any throw, get a second try with an xterm
 * description; if that fails too, the caller falls back to plain lines.
 */
function openScreen(
  blessed: Blessed,
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  term: string,
): Widgets.Screen {
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
