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
  constructor(args: string[], options: { cols: number; rows: number; term: string; cwd: string; env?: Record<string, string> }) {
    this.term = new headless.Terminal({ cols: options.cols, rows: options.rows, allowProposedApi: true });
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    env.TERM = options.term;
    delete env.NO_COLOR;
    Object.assign(env, options.env);
    this.proc = pty.spawn(process.execPath, args, { name: options.term, cols: options.cols, rows: options.rows, cwd: options.cwd, env });
    this.proc.onData((data) => {
      this.raw += data;
      this.term.write(data);
    });
    this.exit = new Promise((done) => this.proc.onExit(done));
  }

  lines(): string[] {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < this.term.rows; i++) out.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return out;
  }

  text(): string {
    return this.lines().join('\n');
  }

  /** Waits until the screen satisfies `check` (xterm parses asynchronously, so each look flushes it first). */
  async waitFor(check: (screen: string) => boolean, what: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await new Promise<void>((done) => this.term.write('', done));
      const screen = this.text();
      if (check(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen shows:\n${screen}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  waitForText(text: string, timeoutMs?: number): Promise<string> {
    return this.waitFor((screen) => screen.includes(text), JSON.stringify(text), timeoutMs);
  }

  press(keys: string): void {
    this.proc.write(keys);
  }

  /** The screen line that starts with `prefix`. */
  row(prefix: string): string | undefined {
    return this.lines().find((line) => line.startsWith(prefix));
  }
}

