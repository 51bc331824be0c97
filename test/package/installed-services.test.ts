// The installed `murmur` (see installed.ts) as a long-running service: `schedule add` then `murmur scheduler`
// firing the run, `murmur serve` answering its link, and `murmur worker` taking a queued swarm's items from a
// private redis-server (Debian package redis-server; a failure in CI when missing, a skip with its name elsewhere).
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../swarm/helpers.js';
import { RedisServer, redisAvailable } from '../queue/helpers.js';
import { installedPackage, userEnv, type InstalledPackage } from './installed.js';

let pkg: InstalledPackage;
let home: string;
let ws: string;
const children: ResultPromise[] = [];

beforeAll(() => {
  pkg = installedPackage();
  home = realpathSync(mkdtempSync(path.join(tmpdir(), 'murmur-installed-home-')));
  ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'murmur-installed-svc-')));
}, 200_000);

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    await child.catch(() => undefined);
  }
});

afterAll(() => {
  for (const dir of [home, ws]) if (dir) rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return userEnv(pkg, home, extra);
}

function murmur(args: string[], cwd: string, extra: Record<string, string> = {}) {
  return execa('murmur', args, {
    cwd,
    env: env(extra),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
}

/** A long-running `murmur …` whose output is collected; killed after the test. */
function start(args: string[], cwd: string, extra: Record<string, string> = {}) {
  const child = execa('murmur', args, {
    cwd,
    env: env(extra),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    buffer: false,
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the installed package as a service', () => {
  it('adds a scheduled task, and `murmur scheduler` runs it when asked to run now', async () => {
    const state = realpathSync(mkdtempSync(path.join(tmpdir(), 'murmur-installed-state-')));
    let service: ReturnType<typeof start> | undefined;
    try {
      writeFileSync(
        path.join(ws, 'script.json'),
        JSON.stringify({ agents: [{ match: { role: 'main', prompt: 'audit' }, turns: [{ text: 'audit done' }] }] }),
      );
      const knobs = { MURMUR_HOME: state, MURMUR_CRON_CHECK_MS: '200' };
      const added = await murmur(
        [
          'schedule',
          'add',
          '--cron',
          '0 6 * * 1-5',
          '--prompt',
          'audit the deps',
          '--model',
          'scripted:script.json',
          '--json',
        ],
        ws,
        knobs,
      );
      expect(added.stderr).toBe('');
      expect(added.exitCode).toBe(0);
      const { id } = JSON.parse(added.stdout) as { id: string };
      service = start(['scheduler', '--cwd', ws], ws, knobs);
      expect((await murmur(['schedule', 'run-now', id], ws, knobs)).exitCode).toBe(0);
      const history = path.join(state, 'cron', 'history', `${id}.json`);
      const run = await until('a finished run', () => {
        if (!existsSync(history)) return undefined;
        const runs = JSON.parse(readFileSync(history, 'utf8')) as { state: string; summary: string | null }[];
        return runs.find((r) => r.state !== 'running');
      });
      expect(run).toMatchObject({ state: 'succeeded', summary: 'audit done' });
      // The service tells of the end after it has recorded it: its line may come a moment after the record.
      await until('the service telling of the end', () => service!.output().includes(`done ${id}`) || undefined);
    } finally {
      // The service checks its tasks every 200 ms and writes under MURMUR_HOME while it lives: it is stopped
      // (and waited for) before its folder is removed, else the removal races its next write (ENOTEMPTY).
      if (service) {
        service.child.kill('SIGTERM');
        await service.child.catch(() => undefined);
      }
      rmSync(state, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 60_000);

  it('serves the console: its link answers / with the token and 401 without', async () => {
    const served = start(['serve', '--port', '0', '--no-scheduler', '--cwd', ws], ws);
    const link = await until('the console link', () => /^murmur console: (\S+)$/m.exec(served.output())?.[1]);
    const url = new URL(link);
    // The link trades its token for a cookie and sends the browser on to the page.
    const entry = await fetch(link, { redirect: 'manual' });
    const cookie = entry.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    const page = await fetch(`${url.protocol}//${url.host}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const refused = await fetch(`${url.protocol}//${url.host}/`);
    expect(refused.status).toBe(401);
  }, 30_000);

  describe('with a private redis-server', () => {
    const available = redisAvailable();
    let redis: RedisServer | undefined;
    let dir: string;

    beforeAll(async () => {
      if (!available) return;
      dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'murmur-installed-queue-')));
      redis = await RedisServer.start(dir);
    });

    afterAll(async () => {
      await redis?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it.runIf(available)(
      'a `murmur worker` takes the items of a queued swarm and its edits land in the workspace',
      async () => {
        const repo = path.join(dir, 'repo');
        await execa('mkdir', ['-p', repo]);
        for (const name of ['one', 'two', 'three']) writeFileSync(path.join(repo, `${name}.txt`), 'a\n');
        git(repo, 'init', '-q', '-b', 'main');
        git(repo, 'add', '-A');
        git(
          repo,
          '-c',
          'user.name=t',
          '-c',
          'user.email=t@localhost',
          '-c',
          'commit.gpgsign=false',
          'commit',
          '-q',
          '-m',
          'initial',
        );
        const script = path.join(dir, 'script.json');
        writeFileSync(
          script,
          JSON.stringify({
            agents: [
              {
                match: { role: 'worker', prompt: 'Fix (\\S+)' },
                turns: [
                  { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }] },
                  { text: 'fixed $1' },
                ],
              },
            ],
          }),
        );
        const checkout = path.join(dir, 'worker-checkout');
        await execa('git', ['clone', '-q', repo, checkout]);
        const worker = start(['worker', '--queue', redis!.url, '--cwd', checkout, '--name', 'w1'], checkout, {
          MURMUR_QUEUE_STALLED_MS: '1000',
        });
        const swarm = await murmur(
          [
            'swarm',
            '--template',
            'Fix {{item}}',
            '--items',
            'one.txt',
            'two.txt',
            'three.txt',
            '--json',
            '--model',
            `scripted:${script}`,
            '--queue',
            redis!.url,
            '--permission-mode',
            'auto',
          ],
          repo,
        );
        expect(swarm.stderr).toBe('');
        expect(JSON.parse(swarm.stdout)).toMatchObject({ summary: { completed: 3 } });
        for (const name of ['one', 'two', 'three'])
          expect(readFileSync(path.join(repo, `${name}.txt`), 'utf8')).toBe('b\n');
        expect(worker.output()).toContain('w1');
      },
      90_000,
    );
  });
});
