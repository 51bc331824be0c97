// A program in a pseudo-terminal (@lydell/node-pty) whose output feeds a headless xterm: tests read the screen
// the way a person would.
import pty from '@lydell/node-pty';
import headless from '@xterm/headless';

/** A program in a pseudo-terminal, with the screen a person would see. */
export class TerminalSession {
  readonly term: InstanceType<typeof headless.Terminal>;
  readonly proc: ReturnType<typeof pty.spawn>;
  raw = '';
  exit: Promise<{ exitCode: number; signal?: number }>;

  /** Runs `node ARGS…` in a pseudo-terminal of the given size and TERM. */
  constructor(
    args: string[],
    options: { cols: number; rows: number; term: string; cwd: string; env?: Record<string, string> },
  ) {
    this.term = new headless.Terminal({ cols: options.cols, rows: options.rows, allowProposedApi: true });
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    env.TERM = options.term;
    delete env.NO_COLOR;
    Object.assign(env, options.env);
    this.proc = pty.spawn(process.execPath, args, {
      name: options.term,
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env,
    });
    this.proc.onData((data) => {
      this.raw += data;
      this.term.write(data);
    });
    this.exit = new Promise((done) => this.proc.onExit(done));
  }

  lines(): string[] {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < this.term.rows; i++)
      out.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return out;
  }

  text(): string {
    return this.lines().join('\n');
  }

  /**
   * Every distinct screen seen while waiting, oldest first (capped): a test can check what was shown along the
   * way, not only the screen it stopped at.
   */
  readonly seen: string[] = [];

  /** Lets xterm parse everything received so far (it parses asynchronously). */
  flush(): Promise<void> {
    return new Promise<void>((done) => this.term.write('', done));
  }

  /**
   * Waits until the screen satisfies `check`. A frame reaches the pseudo-terminal in pieces, and on a loaded
   * machine a look can fall between two of them: wait for everything a test reads, not for one marker of it.
   */
  async waitFor(check: (screen: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.flush();
      const screen = this.text();
      if (this.seen.at(-1) !== screen) {
        this.seen.push(screen);
        if (this.seen.length > 2_000) this.seen.splice(0, 1_000);
      }
      if (check(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen shows:\n${screen}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  waitForText(text: string, timeoutMs?: number): Promise<string> {
    return this.waitFor((screen) => screen.includes(text), JSON.stringify(text), timeoutMs);
  }

  /** Waits for one screen that shows every one of `parts` (texts, or patterns matched against the whole screen). */
  waitForAll(parts: readonly (string | RegExp)[], timeoutMs?: number): Promise<string> {
    const shows = (screen: string, part: string | RegExp) =>
      typeof part === 'string' ? screen.includes(part) : part.test(screen);
    let missing: (string | RegExp)[] = [];
    return this.waitFor(
      (screen) => (missing = parts.filter((part) => !shows(screen, part))).length === 0,
      `a screen with all of ${parts.map(String).join(', ')}`,
      timeoutMs,
    ).catch((error: unknown) => {
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\nmissing: ${missing.map(String).join(', ')}`,
      );
    });
  }

  press(keys: string): void {
    this.proc.write(keys);
  }

  /** The line that starts with `prefix`, on the screen now or on a screen a wait returned. */
  row(prefix: string, screen?: string): string | undefined {
    return (screen === undefined ? this.lines() : screen.split('\n')).find((line) => line.startsWith(prefix));
  }
}
