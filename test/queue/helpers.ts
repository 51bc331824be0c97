// Shared fixtures for the queue suites: a private redis-server on a free loopback port in a temp folder (the
// Debian package `redis-server`), a git workspace with clones for workers, and `murmur worker` / `murmur swarm`
// as real child processes of package.json's bin (npm test builds it).
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { git, removeDir, tempDir } from '../swarm/helpers.js';
import { MURMUR_BIN } from '../murmur-bin.js';

export { readEvents } from '../swarm/helpers.js';

/** Workers and Redis servers still running when the test process ends (a test that timed out) are killed with it, never left behind. */
const running = new Set<ResultPromise>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export const MAIN = MURMUR_BIN;

/** Whether redis-server can run here; in CI (or with MURMUR_REQUIRE_SYSTEM_DEPS) its absence is a failure. */
export function redisAvailable(): boolean {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!found && (process.env.CI || process.env.MURMUR_REQUIRE_SYSTEM_DEPS)) {
    throw new Error(
      'redis-server is missing: install the Debian package redis-server (apt-get install -y redis-server)',
    );
  }
  if (!found) console.warn('skipping the queue tests: redis-server is not installed (Debian package redis-server)');
  return found;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class RedisServer {
  private process: ResultPromise | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly password: string | undefined,
  ) {}

  static async start(dir: string, options: { password?: string } = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), dir, options.password);
    await server.launch();
    return server;
  }

  get url(): string {
    return this.password ? `redis://:${this.password}@127.0.0.1:${this.port}` : `redis://127.0.0.1:${this.port}`;
  }

  private async launch(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
    ];
    if (this.password) args.push('--requirepass', this.password);
    const server = execa('redis-server', args, { reject: false, stdin: 'ignore' });
    running.add(server);
    void server.finally(() => running.delete(server));
    this.process = server;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ping = await execa(
        'redis-cli',
        ['-p', String(this.port), ...(this.password ? ['-a', this.password, '--no-auth-warning'] : []), 'ping'],
        { reject: false },
      );
      if (ping.stdout.trim() === 'PONG') return;
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not start: ${ping.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Stops it (SIGKILL: like a crash; appendonly keeps every write) and starts it again on the same port; `empty`:
   * its files are deleted first, as a server without persistence (or a flushed one, or an empty replica) comes back.
   */
  async restart(downMs = 300, options: { empty?: boolean } = {}): Promise<void> {
    await this.stop();
    if (options.empty) {
      for (const name of ['appendonlydir', 'appendonly.aof', 'dump.rdb'])
        rmSync(path.join(this.dir, name), { recursive: true, force: true });
    }
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.launch();
  }

  async stop(): Promise<void> {
    if (!this.process) return;
    this.process.kill('SIGKILL');
    await this.process;
    this.process = undefined;
  }
}

/** A scripted worker that takes `latencyMs` per turn and edits the item's file (`a` -> `b`). */
export function editScript(latencyMs: number): Script {
  return {
    agents: [
      {
        match: { role: 'worker', prompt: 'Fix (\\S+)' },
        turns: [
          { latencyMs, toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }] },
          { latencyMs, text: 'fixed $1', usage: { input: 10, output: 2 } },
        ],
      },
    ],
  };
}

/** A repository with `files` committed, and the script outside it. */
export function workspace(
  dir: string,
  files: Record<string, string>,
  script: Script,
): { repo: string; script: string } {
  const repo = path.join(dir, 'repo');
  spawnSync('mkdir', ['-p', repo]);
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(repo, file), content);
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
  const scriptFile = path.join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  return { repo, script: scriptFile };
}

/** A clone of the repository for one worker (each worker has its own checkout, as on its own machine). */
export function clone(repo: string, dir: string, name: string): string {
  const target = path.join(dir, name);
  spawnSync('git', ['clone', '-q', repo, target]);
  return target;
}

export function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MURMUR_')) env[k] = v;
  return { ...env, HOME: home, MURMUR_QUEUE_STALLED_MS: '1000', ...extra };
}

export function murmur(args: string[], cwd: string, env: Record<string, string>) {
  return execa(process.execPath, [MAIN, ...args], { reject: false, cwd, env, extendEnv: false, stdin: 'ignore' });
}

/** A `murmur worker` process on `checkout`; its stderr lines are kept for assertions. */
export function startWorker(
  url: string,
  checkout: string,
  home: string,
  name: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  const child = murmur(
    ['worker', '--queue', url, '--cwd', checkout, '--name', name, '--concurrency', '2', ...extra],
    checkout,
    childEnv(home, env),
  );
  running.add(child);
  void child.finally(() => running.delete(child));
  const lines: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return { child, lines, name };
}

export interface RedisFixture {
  readonly dir: string;
  readonly redis: RedisServer;
  /** A connection for BullMQ or direct commands, closed after the block. */
  client(): Redis;
}

/** A temp folder and a private redis-server for a describe block (started before its tests, stopped after). */
export function privateRedis(prefix: string): RedisFixture {
  const clients: Redis[] = [];
  const fixture = {
    client: () => {
      const client = new Redis(fixture.redis.url, { maxRetriesPerRequest: null });
      clients.push(client);
      return client;
    },
  } as RedisFixture & { dir: string; redis: RedisServer };
  beforeAll(async () => {
    fixture.dir = await tempDir(prefix);
    fixture.redis = await RedisServer.start(fixture.dir);
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await fixture.redis?.stop();
    await removeDir(fixture.dir);
  });
  return fixture;
}

/** `murmur swarm --template 'Fix {{item}}' --json` over the queue, in `repo`. */
export function swarmOnQueue(
  url: string,
  repo: string,
  script: string,
  items: string[],
  home: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  return murmur(
    [
      'swarm',
      '--template',
      'Fix {{item}}',
      '--items',
      ...items,
      '--json',
      '--model',
      `scripted:${script}`,
      '--queue',
      url,
      ...extra,
    ],
    repo,
    childEnv(home, env),
  );
}

/** Waits until `check` holds (every 25 ms, up to 15 s); the error names what never happened. */
export async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
