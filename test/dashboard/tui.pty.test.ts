// The real dashboard in a pseudo-terminal: the replay fixture runs in @lydell/node-pty, its output goes into
// a headless xterm, and the assertions read the screen the way a person would.
// The fixture runs from dist/: it is built here first when missing or older than its sources
// (`npm test` builds everything first anyway).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TerminalSession } from './terminal-session.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = join(root, 'dist/test/fixtures/replay-dashboard.js');

function newestSource(): number {
  const sources = [
    join(root, 'test/fixtures/replay-dashboard.ts'),
    join(root, 'orchestrator/events.ts'),
    join(root, 'protocol/events.ts'),
  ];
  for (const name of readdirSync(join(root, 'dashboards')))
    if (name.endsWith('.ts')) sources.push(join(root, 'dashboards', name));
  return Math.max(...sources.map((file) => statSync(file).mtimeMs));
}

function buildIfStale(): void {
  if (existsSync(fixture) && statSync(fixture).mtimeMs >= newestSource()) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', root], { cwd: root, stdio: 'pipe' });
  } catch {
    // Other files may have type errors for a while; tsc still emits, and the check below says if it did not.
  }
  if (!existsSync(fixture))
    throw new Error(`building did not produce ${fixture}; run npx tsc -p . and look at its errors`);
}

const ESC = '\x1b';
const ENTER = '\r';
const sessions: TerminalSession[] = [];

function open(
  args: string[],
  term = 'xterm-256color',
  cols = 120,
  rows = 40,
  env?: Record<string, string>,
): TerminalSession {
  const session = new TerminalSession([fixture, ...args], { cols, rows, term, cwd: root, ...(env ? { env } : {}) });
  sessions.push(session);
  return session;
}

afterEach(() => {
  for (const session of sessions.splice(0)) {
    try {
      session.proc.kill();
    } catch {
      // already gone
    }
  }
});

beforeAll(() => buildIfStale(), 120_000);

describe('the dashboard in a terminal', () => {
  it('shows rows, states and counts; Enter opens a live transcript; Esc returns; q + y exits cleanly', async () => {
    const s = open(['--ticks']);
    // The header, the table and the log pane reach the terminal in pieces: wait for one screen with all of them.
    const counts = ['20 completed', '5 running', '1 rate-limited', '2 failed', '1 aborted', '11 queued', '20/40 done'];
    const rows = {
      'a-25': /worker\s+src\/file-25\.js\s+running\s.*⚙ bash 24 passing/,
      'a-23': /rate-limited\s.*HTTP 429/,
      'a-21': /failed\s.*old_string not found/,
      'a-24': /aborted/,
      'a-20': /completed pass\s.*Converted src\/file-20\.js to ESM/,
    };
    const rowOn = (screen: string, id: string, pattern: RegExp) => pattern.test(s.row(id, screen) ?? '');
    const logLine = /rate limited; capacity now 1: HTTP 429/;
    let screen = await s.waitFor(
      (text) =>
        ['RATE LIMITED', 'Migrate the fixtures to ESM', 'model scripted:replay', ...counts].every((part) =>
          text.includes(part),
        ) &&
        Object.entries(rows).every(([id, pattern]) => rowOn(text, id, pattern)) &&
        logLine.test(text),
      'the whole first frame: header, counts, table rows and the log pane',
    );
    expect(screen).toContain('Migrate the fixtures to ESM');
    expect(screen).toContain('model scripted:replay');
    for (const count of counts) expect(screen).toContain(count);

    // The table: running agents first, then the waiting, failed and aborted ones, then the completed.
    const lines = screen.split('\n');
    const header = lines.findIndex((line) => /^ID\s+ROLE\s+ITEM\s+STATE/.test(line));
    expect(header).toBeGreaterThan(0);
    const ids = lines.slice(header + 1, header + 11).map((line) => line.split(/\s+/)[0]);
    expect(ids).toEqual(['a-25', 'a-26', 'a-27', 'a-28', 'a-29', 'a-23', 'a-22', 'a-21', 'a-24', 'a-20']);
    for (const [id, pattern] of Object.entries(rows)) expect(s.row(id, screen)).toMatch(pattern);
    expect(screen).toMatch(logLine);
    // …and the log pane is the event log: the rate limit is one of its entries, in order after the failures.
    const log = lines.slice(lines.findIndex((line) => /── log ──/.test(line)) + 1);
    expect(log.findIndex((line) => logLine.test(line))).toBeGreaterThan(
      log.findIndex((line) => /a-21 .*failed/.test(line)),
    );

    // j selects the second row; Enter shows that agent's transcript.
    s.press('j');
    await s.waitForText('2/29');
    s.press(ENTER);
    const transcript = [
      '▶ started (worker): Convert src/file-26.js to ESM',
      'Reading src/file-26.js',
      '⚙ read {"path":"src/file-26.js"}',
      'Working on src/file-26.js',
      'Step 2 of 3 for src/file-26.js',
      '⋯ bash: 25 passing',
    ];
    screen = await s.waitForAll(['(Esc: back)', ...transcript]);
    expect(screen.split('\n').find((line) => line.includes('(Esc: back)'))).toMatch(
      /^a-26 worker · src\/file-26\.js · running/,
    );
    for (const text of transcript) expect(screen).toContain(text);
    expect(screen).not.toMatch(/^ID\s+ROLE/m);

    // Esc returns to the table; k and Enter open the first agent, whose transcript keeps growing.
    s.press(ESC);
    await s.waitFor((text) => /^ID\s+ROLE/m.test(text), 'the table');
    s.press('k');
    await s.waitForText('1/29');
    s.press(ENTER);
    await s.waitFor((text) => /^a-25 worker · /m.test(text), 'the transcript of a-25');
    const first = Number(/tick (\d+)/.exec(await s.waitForText('tick '))![1]);
    await s.waitFor((text) => [...text.matchAll(/tick (\d+)/g)].some((m) => Number(m[1]) > first), 'a newer tick line');
    s.press(ESC);
    await s.waitFor((text) => /^ID\s+ROLE/m.test(text), 'the table again');

    // Resizing: the layout follows the terminal.
    s.proc.resize(90, 24);
    s.term.resize(90, 24);
    await s.waitFor(
      (text) =>
        /^ID\s+ROLE\s+ITEM\s+STATE\s+ELAPSED\s+TOKENS\s+ACTIVITY/m.test(text) &&
        text.split('\n')[23]!.includes('q quit'),
      'the narrow layout',
    );

    // q asks once; n keeps going; q then y aborts, and the program restores the terminal and exits.
    s.press('q');
    await s.waitForText('Abort the run?');
    s.press('n');
    await s.waitFor((text) => !text.includes('Abort the run?'), 'the question to close');
    expect(s.raw).not.toContain('replay: aborted');
    s.press('q');
    await s.waitForText('Abort the run?');
    s.press('y');
    const exit = await s.exit;
    await new Promise<void>((done) => s.term.write('', done));
    expect(exit.exitCode).toBe(0);
    expect(s.term.buffer.active.type).toBe('normal');
    expect(s.text()).toContain('replay: aborted cleanly');
    // The cursor was hidden while drawing and is shown again.
    expect(s.raw.lastIndexOf('\x1b[?25h')).toBeGreaterThan(s.raw.lastIndexOf('\x1b[?25l'));
  });

  it('stays readable with 1,000 agents: running first, scrolling to the end and back', async () => {
    const s = open(['--agents', '1000'], 'xterm-256color', 120, 30);
    let screen = await s.waitForAll(['RATE LIMITED', '500 completed', '491 queued', /^a-505 .*running/m]);
    expect(screen).toContain('500 completed');
    expect(screen).toContain('491 queued');
    expect(s.row('a-505', screen)).toMatch(/running/);
    s.press('G');
    const lastRow = (text: string) =>
      text
        .split('\n')
        .filter((line) => /^a-\d+ /.test(line))
        .at(-1) ?? '';
    screen = await s.waitFor((text) => text.includes('509/509') && /^a-01 /.test(lastRow(text)), 'the last page');
    expect(lastRow(screen)).toMatch(/^a-01 worker\s+src\/file-01\.js\s+completed/);
    s.press('g');
    await s.waitForText('1/509');
    s.press('\x1b[6~'); // PageDown
    await s.waitFor((text) => !text.includes('1/509') && /\b\d+\/509\b/.test(text), 'a page down');
    s.press('q');
    await s.waitForText('Abort the run?');
    s.press('y');
    expect((await s.exit).exitCode).toBe(0);
  });

  it('asks a modal question and hands back the key pressed', async () => {
    const s = open(['--ask'], 'xterm-256color', 100, 30);
    const screen = await s.waitForAll([
      'Allow bash for a-25?',
      'npm test -- --watch=false',
      /a allow once\s+d deny\s+Esc cancel/,
    ]);
    expect(screen).toContain('npm test -- --watch=false');
    expect(screen).toMatch(/a allow once\s+d deny\s+Esc cancel/);
    s.press('x'); // not a choice: the question stays
    s.press('d');
    await s.waitFor((text) => !text.includes('Allow bash'), 'the question to close');
    s.press('q');
    await s.waitForText('Abort the run?');
    s.press('y');
    expect((await s.exit).exitCode).toBe(0);
    expect(s.raw).toContain('asked=d');
  });

  it('Ctrl-C gets through an open question: it is dismissed and the quit question asked', async () => {
    const s = open(['--ask'], 'xterm-256color', 100, 30);
    await s.waitForText('Allow bash for a-25?');
    s.press('\x03');
    // The quit question replaces the open one; a look may fall between the two halves of that frame.
    const screen = await s.waitFor(
      (text) => text.includes('Abort the run?') && !text.includes('Allow bash'),
      'the quit question in place of the open one',
    );
    expect(screen).not.toContain('Allow bash');
    s.press('y');
    expect((await s.exit).exitCode).toBe(0);
    expect(s.raw).toContain('replay: aborted cleanly');
    expect(s.raw).toContain('asked=dismissed');
  });

  it('restores the terminal when the process is terminated by a signal, and still dies of it', async () => {
    const s = open([]);
    await s.waitForText('RATE LIMITED');
    s.proc.kill('SIGTERM');
    const exit = await s.exit;
    await new Promise<void>((done) => s.term.write('', done));
    expect(exit.signal).toBe(15);
    expect(s.term.buffer.active.type).toBe('normal');
  });

  it('keeps to at most 10 redraws a second under a flood of events', async () => {
    const s = open(['--flood']);
    await s.waitForText('RATE LIMITED');
    await new Promise((done) => setTimeout(done, 1500));
    s.press('q');
    await s.waitForText('Abort the run?');
    s.press('y');
    expect((await s.exit).exitCode).toBe(0);
    const stats = /renders (\d+), peak (\d+)\/s, events (\d+)/.exec(s.raw);
    expect(stats, s.raw.slice(-300)).not.toBeNull();
    const [, renders, peak, events] = stats!.map(Number);
    expect(events).toBeGreaterThan(renders! * 50);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(10);
  });

  it('drives screen-256color through the xterm description, without terminfo errors on screen', async () => {
    const s = open([], 'screen-256color', 100, 30);
    const screen = await s.waitForAll(['RATE LIMITED', '20 completed']);
    expect(s.raw).not.toContain('Error on');
    expect(screen).toContain('20 completed');
    s.press('q');
    await s.waitForText('Abort the run?');
    s.press('y');
    expect((await s.exit).exitCode).toBe(0);
  });

  it.each(['xterm-256color', 'tmux-256color', 'screen-256color'])(
    'draws its frames with line characters on %s',
    async (term) => {
      const s = open([], term, 100, 30, { LANG: 'C.UTF-8' });
      const screen = await s.waitForAll(['RATE LIMITED', /── log ──+/]);
      expect(screen).toMatch(/── log ──+/);
      expect(screen).not.toContain('qqqq');
      // Never through the alternate character set: tmux and screen show it as letters (`qqqq`).
      expect(s.raw).not.toContain('\x1b(0');
      expect(s.raw).not.toContain('\x0e');
    },
  );

  it('falls back to plain lines when the terminal cannot be driven', async () => {
    const s = open([], 'dumb', 120, 40);
    expect((await s.exit).exitCode).toBe(0);
    expect(s.raw).toContain('plain lines instead');
    expect(s.raw).toMatch(/✗ a-21 \(worker\) src\/file-21\.js failed in 900ms/);
    expect(s.raw).toContain('replay: 20/40 done · 5 running · 11 queued · 1 rate-limited · 2 failed · 1 aborted');
    expect(s.raw).not.toContain('\x1b[?1049h');
  });
});
