// The scheduler's check with 10,000 tasks across 10 workspaces: the time to find what is due (cold: files
// parsed and every next fire computed; warm: the steady state of a running service) and the memory it holds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CronService } from '../scheduler/service.js';
import { CronStore } from '../scheduler/store.js';
import { checkTaskInput, type TaskInput } from '../scheduler/validate.js';
import type { ScheduledTask } from '../scheduler/types.js';
import { stampDue } from '../scheduler/firing.js';

const WORKSPACES = 10;
const PER_WORKSPACE = 1000;

const SHAPES: TaskInput[] = [
  { cron: '*/5 * * * *', timezone: 'UTC' },
  { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
  { cron: '30 2 * * *', timezone: 'America/New_York' },
  { cron: '0 */2 * * *', timezone: 'Asia/Tokyo' },
  { cron: '15 14 1 * *', timezone: 'UTC' },
  { every: '2w', at: '07:00', start: '2026-01-05', timezone: 'Europe/Berlin' },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function benchCron(report: (line: string) => void): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'murmur-cron-bench-'));
  const start = Date.parse('2026-06-01T08:00:00Z');
  try {
    const definitions = SHAPES.map((shape) => {
      const checked = checkTaskInput({ ...shape, prompt: 'Audit the dependencies and report what is outdated' }, start);
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      return checked.value;
    });
    const stores: CronStore[] = [];
    for (let w = 0; w < WORKSPACES; w++) {
      const workspace = join(root, `ws-${w}`);
      const home = join(workspace, '.murmur');
      mkdirSync(join(home, 'cron'), { recursive: true });
      const tasks: ScheduledTask[] = [];
      for (let i = 0; i < PER_WORKSPACE; i++) {
        const definition = definitions[(w * PER_WORKSPACE + i) % definitions.length]!;
        // Created at different moments, as the store stamps them (each with its next due time).
        const createdAt = start - ((w * PER_WORKSPACE + i) % 600) * 1000;
        const task: ScheduledTask = {
          id: `st-${w}-${i}`,
          workspace,
          ...definition,
          createdBy: i % 3 === 0 ? 'agent' : 'person',
          createdAt,
          updatedAt: createdAt,
          paused: i % 10 === 0,
          cursor: createdAt,
          fires: 0,
        };
        stampDue(task);
        tasks.push(task);
      }
      writeFileSync(join(home, 'cron', 'tasks.json'), JSON.stringify({ version: 1, tasks }));
      stores.push(new CronStore(workspace, home));
    }
    let now = start + 60_000;
    const clock = { now: () => now, setTimeout: () => undefined, clearTimeout: () => undefined };
    const service = new CronService({
      stores: () => stores,
      clock,
      launch: () => ({ done: new Promise(() => undefined), stop: () => undefined }),
    });
    service.claim();
    globalThis.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let t = performance.now();
    const coldDue = service.findDue(now).length;
    const cold = performance.now() - t;
    const heapAfter = process.memoryUsage().heapUsed;
    const warm: number[] = [];
    let dueCount = 0;
    for (let i = 0; i < 20; i++) {
      now += 1000;
      t = performance.now();
      dueCount = service.findDue(now).length;
      warm.push(performance.now() - t);
    }
    // A check half an hour later: many caches expire at once (every */5 task and more are due).
    now += 30 * 60_000;
    t = performance.now();
    const laterDue = service.findDue(now).length;
    const later = performance.now() - t;
    await service.stop();
    report(
      `cron: ${WORKSPACES * PER_WORKSPACE} tasks in ${WORKSPACES} workspaces — find due: cold ${cold.toFixed(1)} ms (${coldDue} due), ` +
        `warm median ${median(warm).toFixed(2)} ms (${dueCount} due, target < 50 ms), 30 min later ${later.toFixed(1)} ms (${laterDue} due); ` +
        `heap +${((heapAfter - heapBefore) / 1024 / 1024).toFixed(1)} MB`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
