import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../tools/workspace-tools.js';
import { HeadTailBuffer } from '../../tools/shell/output-buffer.js';
import { runInProcessGroup } from '../../tools/shell/process-group.js';
import { scrubSecrets } from '../../tools/shell/secret-env.js';
import { call, contextFor, removeDir, taskStoreOf, tempDir, TestTasks, text } from './helpers.js';

/** bash without a task store (foreground only), as the loop's fallback makes it. */
const bashTool = createBashTool();

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

/**
 * Shell text that starts `command` in a session of its own (setsid) and goes on only once it is there, so the
 * command's shell cannot exit (and its group be stopped) while the child is still in the group.
 */
function leaveGroup(command: string, redirect = ''): string {
  const ready = `.left-${Math.random().toString(36).slice(2)}`;
  return `setsid sh -c 'touch ${ready}; exec ${command}'${redirect} & while [ ! -e ${ready} ]; do sleep 0.02; done`;
}

/** Kills the processes whose command line contains `marker` (escaped ones a test started). */
function killAll(marker: string): void {
  for (const line of processesWith(marker)) {
    try {
      process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

// Generous: on a loaded machine the processes of a stopped group take a while to be reaped and leave the table.
const waitFor = async (check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
};

describe('bash', () => {
  it('runs in the workspace, streams output and reports the exit code', async () => {
    const updates: string[] = [];
    const result = await call(
      bashTool,
      contextFor(root),
      { command: 'pwd; echo err >&2; exit 3' },
      { onUpdate: (chunk) => updates.push(chunk) },
    );
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
      {
        command: `(sleep ${marker} &) ; bash -c 'sleep ${marker}1' & sleep 0.2; echo spawned; sleep ${marker}2`,
        timeout: 1_000,
      },
      {
        onUpdate: (chunk) => {
          if (chunk.includes('spawned')) seenWhileRunning = processesWith(`sleep ${marker}`).length;
        },
      },
    );
    expect(seenWhileRunning).toBeGreaterThanOrEqual(3);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Timed out after 1 s');
    expect(await waitFor(() => processesWith(`sleep ${marker}`).length === 0)).toBe(true);
  });

  it('stops processes left behind when the command itself ends', async () => {
    const marker = `${800000 + Math.floor(Math.random() * 99999)}`;
    const result = await call(bashTool, contextFor(root), {
      command: `(sleep ${marker} > /dev/null 2>&1 &); echo started`,
    });
    expect(text(result)).toContain('started');
    expect(await waitFor(() => processesWith(`sleep ${marker}`).length === 0)).toBe(true);
  });

  // setsid puts a process in a session (and group) of its own: the group kill cannot reach it, and it holds the
  // output pipe open. The command must still end on time and say what may still run.
  it('does not wait for a process that left the group, and says it may still run', async () => {
    const marker = `${600000 + Math.floor(Math.random() * 99999)}`;
    try {
      const result = await call(bashTool, contextFor(root), {
        command: `${leaveGroup(`sleep ${marker}`)}; echo started`,
        timeout: 2_000,
      });
      expect(text(result)).toContain('started');
      expect(text(result)).toContain('Exit code 0.');
      expect(text(result)).toContain("A process left the command's process group and may still run: pid");
      expect(text(result)).toContain(`(sleep ${marker})`);
      expect(text(result)).not.toContain('every process it started were stopped');
    } finally {
      killAll(`sleep ${marker}`);
    }
  }, 30_000);

  it('on timeout stops the group, does not wait for an escaped process, and does not claim it stopped everything', async () => {
    const marker = `${500000 + Math.floor(Math.random() * 99999)}`;
    try {
      const result = await call(bashTool, contextFor(root), {
        command: `${leaveGroup(`sleep ${marker}`)}; echo started; sleep ${marker}1`,
        timeout: 1_000,
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(
        "Timed out after 1 s: the command's process group was stopped. A process left the command's process group and may still run",
      );
      expect(text(result)).toContain(`(sleep ${marker})`);
      expect(await waitFor(() => processesWith(`sleep ${marker}1`).length === 0)).toBe(true);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const aborted = await call(
        bashTool,
        contextFor(root),
        { command: `${leaveGroup(`sleep ${marker}2`)}; sleep ${marker}3` },
        { signal: controller.signal },
      );
      expect(text(aborted)).toContain("Aborted: the command's process group was stopped. A process left");
    } finally {
      killAll(`sleep ${marker}`);
    }
  }, 30_000);

  it('reports an escaped process that does not hold the output', async () => {
    const marker = `${400000 + Math.floor(Math.random() * 99999)}`;
    try {
      const run = await runInProcessGroup({
        command: `${leaveGroup(`sleep ${marker}`, ' > /dev/null 2>&1')}; echo done`,
        cwd: root,
        env: scrubSecrets(process.env),
        onOutput: () => {},
      });
      expect(run.exitCode).toBe(0);
      expect(run.outputCut).toBeUndefined();
      expect(run.escaped?.map((p) => p.command)).toEqual([`sleep ${marker}`]);
    } finally {
      killAll(`sleep ${marker}`);
    }
  });

  it('sends SIGKILL after the grace period to a process that ignores SIGTERM', async () => {
    const marker = `${700000 + Math.floor(Math.random() * 99999)}`;
    const output: string[] = [];
    const run = await runInProcessGroup({
      command: `trap '' TERM; echo ready; sleep ${marker}; sleep ${marker}`,
      cwd: root,
      env: scrubSecrets(process.env),
      // Time for the shell to start and set its trap even on a loaded machine: the TERM must find it ignored.
      timeoutMs: 1_500,
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
      // Configured patterns add to the defaults: the API key stays out although the list does not name it.
      const custom = await call(bashTool, contextFor(root, { env: { secretPatterns: ['*_PLAIN'] } }), {
        command: 'env | grep MURMUR_TEST_ | sort',
      });
      expect(text(custom)).not.toContain('MURMUR_TEST_PLAIN');
      expect(text(custom)).not.toContain('MURMUR_TEST_API_KEY');
      expect(text(custom)).not.toContain('MURMUR_TEST_PASSWORD');
    } finally {
      delete process.env.MURMUR_TEST_API_KEY;
      delete process.env.MURMUR_TEST_TOKEN;
      delete process.env.MURMUR_TEST_SECRET;
      delete process.env.MURMUR_TEST_PLAIN;
      delete process.env.MURMUR_TEST_PASSWORD;
    }
  });

  it('removes the usual secret names by default and keeps ordinary variables', () => {
    const secrets = [
      'OPENAI_KEY',
      'STRIPE_SECRET_KEY',
      'GITHUB_PRIVATE_KEY',
      'API_KEY',
      'MY_APP_SECRET_VALUE',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'PGPASSWORD',
      'NPM_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'SECRET_KEY_BASE',
    ];
    const ordinary = [
      'PATH',
      'HOME',
      'LANG',
      'TERM',
      'USER',
      'SHELL',
      'PWD',
      'SSH_AUTH_SOCK',
      'NODE_ENV',
      'KEYBOARD_LAYOUT',
    ];
    const env = Object.fromEntries([...secrets, ...ordinary].map((name) => [name, 'value']));
    expect(Object.keys(scrubSecrets(env)).sort()).toEqual([...ordinary].sort());
    expect(Object.keys(scrubSecrets(env, ['NODE_*'])).sort()).toEqual(
      ordinary.filter((name) => name !== 'NODE_ENV').sort(),
    );
  });

  it('checks its arguments: timeout range, cwd inside the workspace, disable_timeout only in the background', async () => {
    expect(text(await call(bashTool, contextFor(root), { command: 'true', timeout: 400_000 }))).toContain(
      'above the foreground maximum of 300000 ms',
    );
    expect(text(await call(bashTool, contextFor(root), { command: 'true', cwd: '/' }))).toContain(
      'outside the workspace',
    );
    expect(text(await call(bashTool, contextFor(root), { command: 'true', disable_timeout: true }))).toContain(
      'only to background',
    );
  });

  it('runs a background command through the task registry', async () => {
    const tasks = new TestTasks(path.join(root, 'tasks'));
    const ctx = contextFor(root);
    const result = await call(createBashTool(taskStoreOf(tasks)), ctx, {
      command: 'echo one; sleep 0.2; echo two',
      run_in_background: true,
      description: 'count to two',
    });
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
    const ctx = contextFor(root);
    const withTasks = createBashTool(taskStoreOf(tasks));
    expect(text(await call(withTasks, ctx, { command: 'sleep 1', run_in_background: true }))).toContain(
      'needs a description',
    );
    const started = await call(withTasks, ctx, {
      command: 'sleep 30',
      run_in_background: true,
      description: 'slow',
      timeout: 300,
    });
    const info = await tasks.wait((started.details as { taskId: string }).taskId, 10_000);
    expect(info?.status).toBe('timeout');
  });

  it('says background commands are not available when made without a task store', async () => {
    const result = await call(bashTool, contextFor(root), {
      command: 'sleep 1',
      run_in_background: true,
      description: 'x',
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Background commands are not available here');
  });

  it('keeps the head and tail of a huge output in memory', () => {
    const buffer = new HeadTailBuffer(10);
    for (const chunk of ['abc', 'defgh', 'ijklmnop', 'qrstuvwxyz']) buffer.append(chunk);
    expect(buffer.toString()).toBe(
      'abcde\n[… 16 characters of output cut here; redirect the output to a file to keep all of it …]\nvwxyz',
    );
    const small = new HeadTailBuffer(10);
    small.append('abc');
    small.append('defg');
    expect(small.toString()).toBe('abcdefg');
  });
});
