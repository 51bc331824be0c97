// The process launcher's kill, with real processes: a run that ignores SIGTERM (and a process it started that
// ignores it too) is ended by kill(), its whole process group with it, and is reported interrupted.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { processLauncher } from '../../scheduler/run-process.js';
import { pidAlive } from '../../host/process-identity.js';
import { CronStore } from '../../scheduler/store.js';
import type { RunRecord, ScheduledTask } from '../../scheduler/types.js';

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-launch-')));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const until = async (ok: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

it.runIf(process.platform !== 'win32')(
  'kills a run that ignores SIGTERM, and what it started, and reports it interrupted',
  async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const script = join(dir, 'stubborn.mjs');
    writeFileSync(
      script,
      `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
process.on('SIGTERM', () => {});
const g = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
setInterval(() => {}, 1000);
`,
    );
    const store = new CronStore(dir, join(dir, '.murmur'));
    const task = { id: 'st-1', workspace: dir, createdBy: 'person' } as ScheduledTask;
    const run = { id: 'run-1', sessionId: 'sess-1' } as RunRecord;
    const handle = processLauncher({ mainScript: script })({ store, task, run, prompt: 'p' });
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    handle.stop();
    const early = await Promise.race([handle.done, new Promise((r) => setTimeout(() => r('still running'), 200))]);
    expect(early).toBe('still running');
    handle.kill!();
    expect(await handle.done).toMatchObject({
      state: 'interrupted',
      summary: expect.stringContaining('murmur resume sess-1'),
    });
    await until(() => !pidAlive(grandchild));
  },
);
