import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../tools/workspace-tools.js';
import { HeadTailBuffer } from '../../tools/shell/output-buffer.js';
import { runInProcessGroup } from '../../tools/shell/process-group.js';
import { scrubSecrets } from '../../tools/shell/secret-env.js';
import { call, contextFor, removeDir, tempDir, TestTasks, text } from './helpers.js';

let root: string;

beforeAll(async () => {
  root = await tempDir();
});

afterAll(async () => {
  await removeDir(root);
});

/** Processes whose command line contains `marker`, from the process table. */
function processesWith(marker: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return table.split('\n').filter((line) => line.includes(marker) && !line.includes('ps -eo'));
}

const waitFor = async (check: () => boolean, ms = 3_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
};

describe('bash', () => {
  it('runs in the workspace, streams output and reports the exit code', async () => {
    const updates: string[] = [];
    const result = await call(bashTool, contextFor(root), { command: 'pwd; echo err >&2; exit 3' }, { onUpdate: (chunk) => updates.push(chunk) });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(root);
    expect(text(result)).toContain('err');
    expect(text(result)).toContain('Exit code 3.');
    expect(updates.join('')).toContain(root);
  });

  it('closes stdin so an interactive command gets EOF at once', async () => {
    const result = await call(bashTool, contextFor(root), { command: 'read line; echo "got:[$line] status:$?"' });
    expect(text(result)).toContain('got:[] status:1');
  });

  it('on timeout kills the whole process group, grandchildren included', async () => {
    const marker = `${900000 + Math.floor(Math.random() * 99999)}`;
    let seenWhileRunning = 0;
    const result = await call(
      bashTool,
      contextFor(root),
      { command: `(sleep ${marker} &) ; bash -c 'sleep ${marker}1' & sleep 0.2; echo spawned; sleep ${marker}2`, timeout: 1_000 },
      { onUpdate: (chunk) => { if (chunk.includes('spawned')) seenWhileRunning = processesWith(`sleep ${marker}`).length; } },
    );
    expect(seenWhileRunning).toBeGreaterThanOrEqual(3);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Timed out after 1 s');
    expect(await waitFor(() => processesWith(`sleep ${marker}`).length === 0)).toBe(true);
  });

  it('stops processes left behind when the command itself ends', async () => {
    const marker = `${800000 + Math.floor(Math.random() * 99999)}`;
    const result = await call(bashTool, contextFor(root), { command: `(sleep ${marker} > /dev/null 2>&1 &); echo started` });
    expect(text(result)).toContain('started');
    expect(await waitFor(() => processesWith(`sleep ${marker}`).length === 0)).toBe(true);
  });

  it('sends SIGKILL after the grace period to a process that ignores SIGTERM', async () => {
    const marker = `${700000 + Math.floor(Math.random() * 99999)}`;
    const output: string[] = [];
    const run = await runInProcessGroup({
      command: `trap '' TERM; echo ready; sleep ${marker}; sleep ${marker}`,
      cwd: root,
      env: scrubSecrets(process.env),
      timeoutMs: 300,
      graceMs: 300,
      onOutput: (chunk) => output.push(chunk),
    });
    expect(run.timedOut).toBe(true);
    expect(output.join('')).toContain('ready');
    expect(await waitFor(() => processesWith(`sleep ${marker}`).length === 0)).toBe(true);
  });

  it('stops the command when the agent is aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await call(bashTool, contextFor(root), { command: 'sleep 30' }, { signal: controller.signal });
    expect(text(result)).toContain('Aborted');
  });

  it('removes secrets from the environment of the command', async () => {
    process.env.MURMUR_TEST_API_KEY = 'k1';
    process.env.MURMUR_TEST_TOKEN = 'k2';
    process.env.MURMUR_TEST_SECRET = 'k3';
    process.env.MURMUR_TEST_PLAIN = 'visible';
    process.env.MURMUR_TEST_PASSWORD = 'k4';
    try {
      const result = await call(bashTool, contextFor(root), { command: 'env | grep MURMUR_TEST_ | sort' });
      expect(text(result)).toContain('MURMUR_TEST_PLAIN=visible');
      expect(text(result)).not.toMatch(/API_KEY|_TOKEN|_SECRET|_PASSWORD/);
      const custom = await call(bashTool, contextFor(root, { env: { secretPatterns: ['*_PLAIN'] } }), { command: 'env | grep MURMUR_TEST_ | sort' });
      expect(text(custom)).not.toContain('MURMUR_TEST_PLAIN');
      expect(text(custom)).toContain('MURMUR_TEST_API_KEY=k1');
      expect(text(custom)).toContain('MURMUR_TEST_PASSWORD=k4');
    } finally {
      delete process.env.MURMUR_TEST_API_KEY;
      delete process.env.MURMUR_TEST_TOKEN;
      delete process.env.MURMUR_TEST_SECRET;
      delete process.env.MURMUR_TEST_PLAIN;
      delete process.env.MURMUR_TEST_PASSWORD;
    }
  });

  it('checks its arguments: timeout range, cwd inside the workspace, disable_timeout only in the background', async () => {
    expect(text(await call(bashTool, contextFor(root), { command: 'true', timeout: 400_000 }))).toContain('above the foreground maximum of 300000 ms');
    expect(text(await call(bashTool, contextFor(root), { command: 'true', cwd: '/' }))).toContain('outside the workspace');
    expect(text(await call(bashTool, contextFor(root), { command: 'true', disable_timeout: true }))).toContain('only to background');
  });

  it('runs a background command through the task registry', async () => {
    const tasks = new TestTasks(path.join(root, 'tasks'));
    const ctx = contextFor(root, { tasks });
    const result = await call(bashTool, ctx, { command: 'echo one; sleep 0.2; echo two', run_in_background: true, description: 'count to two' });
    expect(result.isError).toBeUndefined();
    const taskId = (result.details as { taskId: string }).taskId;
    expect(text(result)).toContain(`Started background task ${taskId}`);
    const info = await tasks.wait(taskId, 10_000);
    expect(info?.status).toBe('completed');
    expect(info?.result).toBe('Exit code 0.');
    expect(await readFile(info!.outputPath, 'utf8')).toBe('one\ntwo\n');
  });

  it('times out a background command and needs a description', async () => {
    const tasks = new TestTasks(path.join(root, 'tasks2'));
    const ctx = contextFor(root, { tasks });
    expect(text(await call(bashTool, ctx, { command: 'sleep 1', run_in_background: true }))).toContain('needs a description');
    const started = await call(bashTool, ctx, { command: 'sleep 30', run_in_background: true, description: 'slow', timeout: 300 });
    const info = await tasks.wait((started.details as { taskId: string }).taskId, 10_000);
    expect(info?.status).toBe('timeout');
  });

  it('says background commands are not available without a registry', async () => {
    const result = await call(bashTool, contextFor(root), { command: 'sleep 1', run_in_background: true, description: 'x' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Background commands are not available here');
  });

  it('keeps the head and tail of a huge output in memory', () => {
    const buffer = new HeadTailBuffer(10);
    for (const chunk of ['abc', 'defgh', 'ijklmnop', 'qrstuvwxyz']) buffer.append(chunk);
    expect(buffer.toString()).toBe('abcde\n[… 16 characters of output cut here; redirect the output to a file to keep all of it …]\nvwxyz');
    const small = new HeadTailBuffer(10);
    small.append('abc');
    small.append('defg');
    expect(small.toString()).toBe('abcdefg');
  });
});
