// The dashboard inside a real tmux (a private server on its own socket): the screen tmux itself shows, read
// with capture-pane, has line-drawn frames, not `qqqq`. Needs the Debian package tmux (skipped without it,
// except in CI or with MURMUR_REQUIRE_SYSTEM_DEPS, where it must be there).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = join(root, 'dist/test/fixtures/replay-dashboard.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const required = Boolean(process.env.CI || process.env.MURMUR_REQUIRE_SYSTEM_DEPS);
const socket = `murmur-test-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });

if (!hasTmux && !required) console.warn('skipping the tmux frame test: tmux is not installed (Debian package: tmux)');

afterAll(() => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
});

describe.runIf(hasTmux || required)('the dashboard inside tmux', () => {
  it.each(['tmux-256color', 'screen-256color'])(
    'shows line-drawn frames with TERM=%s',
    async (term) => {
      expect(hasTmux, 'tmux is required here (Debian package: tmux)').toBe(true);
      expect(existsSync(fixture), `${fixture} is built by npx tsc -p .`).toBe(true);
      const session = `frames-${term}`;
      tmux(
        'new-session',
        '-d',
        '-s',
        session,
        '-x',
        '100',
        '-y',
        '30',
        `env TERM=${term} LANG=C.UTF-8 ${JSON.stringify(process.execPath)} ${JSON.stringify(fixture)}`,
      );
      try {
        let screen = '';
        for (let i = 0; i < 200 && !screen.includes('RATE LIMITED'); i++) {
          await new Promise((done) => setTimeout(done, 50));
          screen = tmux('capture-pane', '-p', '-t', session);
        }
        expect(screen).toContain('RATE LIMITED');
        expect(screen).toMatch(/── log ──+/);
        expect(screen).not.toContain('qqqq');
      } finally {
        spawnSync('tmux', ['-L', socket, 'kill-session', '-t', session]);
      }
    },
    20_000,
  );
});
