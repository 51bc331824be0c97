// A swarm over a real Redis queue, with `murmur worker`s as separate processes each in its own clone: the
// edits land in the coordinator's tree, the report matches a local run, and items show live with their host.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  childEnv,
  clone,
  editScript,
  murmur,
  privateRedis,
  readEvents,
  redisAvailable,
  startWorker,
  workspace,
} from './helpers.js';
import { bwrapAvailable } from '../sandbox/helpers.js';

const available = redisAvailable();
const sandboxWorks = bwrapAvailable();

describe.runIf(available)('murmur swarm --queue', () => {
  const fixture = privateRedis('murmur-queue-');

  it(
    'runs the items on two workers: the edits land here and the report matches a local run',
    { timeout: 60_000 },
    async () => {
      const { dir, redis } = fixture;
      const files = { 'a.txt': 'a\n', 'b.txt': 'a\n', 'c.txt': 'a\n' };
      const { repo, script } = workspace(path.join(dir, 'one'), files, editScript(20));
      const local = workspace(path.join(dir, 'local'), files, editScript(20));
      const workers = [
        startWorker(redis.url, clone(repo, dir, 'w1'), dir, 'host-1'),
        startWorker(redis.url, clone(repo, dir, 'w2'), dir, 'host-2'),
      ];
      try {
        const events = path.join(dir, 'events.jsonl');
        const common = [
          'swarm',
          '--template',
          'Fix {{item}}',
          '--items',
          'a.txt',
          'b.txt',
          'c.txt',
          '--permission-mode',
          'auto',
          '--json',
        ];
        const remote = await murmur(
          [...common, '--model', `scripted:${script}`, '--queue', redis.url, '--events', events],
          repo,
          childEnv(dir),
        );
        expect(remote.stderr).toBe('');
        expect(remote.exitCode).toBe(0);
        for (const file of Object.keys(files)) expect(readFileSync(path.join(repo, file), 'utf8')).toBe('b\n');
        const localEvents = path.join(dir, 'local-events.jsonl');
        const here = await murmur(
          [...common, '--model', `scripted:${local.script}`, '--isolation', 'worktree', '--events', localEvents],
          local.repo,
          childEnv(dir),
        );
        expect(here.exitCode).toBe(0);
        // The workers' usage is the run's, as the local agents' is.
        const usage = (file: string) => readEvents(file).find((e) => e.type === 'run.end')?.usage;
        expect(usage(events)).toEqual(usage(localEvents));
        expect(usage(events)?.input).toBeGreaterThan(0);
        const strip = (out: string) => {
          const report = JSON.parse(out) as { items: Record<string, unknown>[]; summary: unknown; status: string };
          return {
            summary: report.summary,
            status: report.status,
            items: report.items.map(({ agentId: _a, host: _h, model: _m, ...rest }) => rest),
          };
        };
        expect(strip(remote.stdout)).toEqual(strip(here.stdout));
        const items = (JSON.parse(remote.stdout) as { items: { host: string; model: string }[] }).items;
        for (const item of items) {
          expect(['host-1', 'host-2']).toContain(item.host);
          expect(item.model).toBe(`scripted:${script}`);
        }
        // Live: each item was seen launched on its worker before it completed.
        const seen = readEvents(events).filter((e) => e.type === 'swarm.item');
        for (const index of [0, 1, 2]) {
          const states = seen.filter((e) => e.index === index);
          expect(states.map((e) => e.state)).toEqual(['queued', 'launched', 'completed']);
          expect(states[1]!.host).toBe(states[2]!.host);
        }
      } finally {
        for (const w of workers) w.child.kill('SIGTERM');
        await Promise.all(workers.map((w) => w.child));
      }
    },
  );

  it.runIf(sandboxWorks)(
    "a sandboxed swarm's items run sandboxed on a worker started without --sandbox, and their edits land here",
    { timeout: 60_000 },
    async () => {
      const { dir, redis } = fixture;
      const root = path.join(dir, 'sandboxed');
      // Each item records the processes its shell sees (a handful in its own PID namespace), tries to write in the
      // worker's clone outside its worktree (the clone is under /tmp: the write lands in the private /tmp), and tries
      // to plant code in the clone's git folder that the worker's own git would run on the host for later items
      // (a post-checkout hook at the next `worktree add`, an fsmonitor at the next `add -A`).
      const marker = path.join(root, 'planted-code-ran');
      const plant =
        'g=$(git rev-parse --path-format=absolute --git-common-dir); ' +
        `printf '#!/bin/sh\\ntouch ${marker}\\n' > "$g/hooks/post-checkout" 2>/dev/null; chmod +x "$g/hooks/post-checkout" 2>/dev/null; ` +
        `git config core.fsmonitor "touch ${marker}" 2>/dev/null; `;
      const record = `${plant}touch "$CLONE/escaped" 2>/dev/null; ls -d /proc/[0-9]* | wc -l > seen-$1`;
      const { repo, script } = workspace(
        root,
        { 'a.txt': 'a\n', 'b.txt': 'a\n' },
        {
          agents: [
            {
              match: { role: 'worker', prompt: 'Fix (\\S+)' },
              turns: [{ toolCalls: [{ name: 'bash', arguments: { command: record } }] }, { text: 'fixed $1' }],
            },
          ],
        },
      );
      const checkout = clone(repo, root, 'w');
      const worker = startWorker(redis.url, checkout, dir, 'plain', [], { CLONE: checkout });
      try {
        const result = await murmur(
          [
            'swarm',
            '--template',
            'Fix {{item}}',
            '--items',
            'a.txt',
            'b.txt',
            '--sandbox',
            '--permission-mode',
            'yolo',
            '--model',
            `scripted:${script}`,
            '--queue',
            redis.url,
            '--json',
          ],
          repo,
          childEnv(dir),
        );
        expect(result.exitCode).toBe(0);
        for (const item of ['a.txt', 'b.txt']) {
          const procs = readFileSync(path.join(repo, `seen-${item}`), 'utf8').trim();
          expect(Number(procs)).toBeLessThanOrEqual(8);
        }
        expect(existsSync(path.join(checkout, 'escaped'))).toBe(false);
        // Nothing planted in the clone, so nothing ran for the second item or will run for the next swarm's.
        expect(existsSync(path.join(checkout, '.git', 'hooks', 'post-checkout'))).toBe(false);
        expect(readFileSync(path.join(checkout, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
        expect(existsSync(marker)).toBe(false);
      } finally {
        worker.child.kill('SIGTERM');
        await worker.child;
      }
    },
  );

  it(
    'a worker started with --model runs every item on its own model, and the report says so',
    { timeout: 60_000 },
    async () => {
      const { dir, redis } = fixture;
      const root = path.join(dir, 'own-model');
      const { repo, script } = workspace(root, { 'a.txt': 'a\n' }, editScript(0));
      const own = path.join(root, 'own.json');
      writeFileSync(
        own,
        JSON.stringify({ agents: [{ match: { role: 'worker' }, turns: [{ text: 'answered by the local model' }] }] }),
      );
      const worker = startWorker(redis.url, clone(repo, root, 'w'), dir, 'gpu-box', ['--model', `scripted:${own}`]);
      try {
        const result = await murmur(
          [
            'swarm',
            '--template',
            'Fix {{item}}',
            '--items',
            'a.txt',
            '--json',
            '--model',
            `scripted:${script}`,
            '--queue',
            redis.url,
          ],
          repo,
          childEnv(dir),
        );
        expect(result.exitCode).toBe(0);
        const [item] = (JSON.parse(result.stdout) as { items: Record<string, unknown>[] }).items;
        expect(item).toMatchObject({
          outcome: 'completed',
          text: 'answered by the local model',
          host: 'gpu-box',
          model: `scripted:${own}`,
        });
      } finally {
        worker.child.kill('SIGTERM');
        await worker.child;
      }
    },
  );

  it(
    'a diff that does not apply here is kept as patches/<item>.patch in the session and named in the report',
    { timeout: 60_000 },
    async () => {
      const { dir, redis } = fixture;
      const root = path.join(dir, 'conflict');
      const { repo, script } = workspace(root, { 'a.txt': 'a\n' }, editScript(0));
      const worker = startWorker(redis.url, clone(repo, root, 'w'), dir, 'w');
      try {
        // Changed here since the commit the worker starts from: its edit cannot apply.
        writeFileSync(path.join(repo, 'a.txt'), 'z\n');
        const result = await murmur(
          [
            'swarm',
            '--template',
            'Fix {{item}}',
            '--items',
            'a.txt',
            '--permission-mode',
            'auto',
            '--model',
            `scripted:${script}`,
            '--queue',
            redis.url,
          ],
          repo,
          childEnv(dir),
        );
        expect(result.exitCode).toBe(1);
        const patch = /patch="([^"]+)"/.exec(result.stdout)?.[1];
        expect(patch).toMatch(/\/\.murmur\/sessions\/[^/]+\/patches\/1\.patch$/);
        expect(result.stdout).toContain('outcome="conflict"');
        expect(readFileSync(patch!, 'utf8')).toContain('-a\n+b');
        expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('z\n');
      } finally {
        worker.child.kill('SIGTERM');
        await worker.child;
      }
    },
  );
});
