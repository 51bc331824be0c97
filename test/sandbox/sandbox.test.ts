// Agents' shells in the sandbox, tried through the installed command with the real bubblewrap: a command cannot
// write outside its workspace, sees no secret folder, no murmur state, no sibling process and (unless allowed) no
// network, while murmur-tools still works; a worktree swarm's items commit in their worktrees and are merged back;
// a resume stays in the sandbox; auto mode runs sandboxed bash with `autoAllowBash`; and a sandbox that cannot
// work (bwrap missing, no namespaces) is exit 2 before anything is on disk, for run, worker and mcp serve.
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { gitRepo, murmurIn, readEvents, removeDir, tempDir, waitFor, writeTree } from '../swarm/helpers.js';
import { ROOT, staleBinReason } from '../murmur-bin.js';
import { bwrapAvailable, NO_NAMESPACES_BWRAP, pathWithout, probeCommand, probeResult } from './helpers.js';

const available = bwrapAvailable();
let dir: string;
let outside: string;
let hostTmp: string;
let server: Server;
let port: number;

beforeAll(async () => {
  const stale = staleBinReason();
  if (stale) throw new Error(stale);
  // A loopback service on the host: reachable only when the sandbox allows the network.
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(async () => {
  dir = await tempDir('murmur-sandbox-');
  // Outside the workspace and not under /tmp, so the sandbox's private /tmp does not explain the refusal.
  mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
  outside = mkdtempSync(path.join(ROOT, 'test-output', 'sandbox-outside-'));
  hostTmp = await tempDir('murmur-sandbox-host-tmp-');
  // HOME is the workspace (murmurIn): its .ssh lies inside the writable workspace and must still be hidden.
  writeTree(dir, { '.ssh/id_ed25519': 'PRIVATE KEY\n' });
});
afterEach(async () => {
  await removeDir(dir);
  await removeDir(hostTmp);
  rmSync(outside, { recursive: true, force: true });
});

function murmur(args: string[], env: Record<string, string> = {}) {
  return murmurIn(dir, args, { OUTSIDE: outside, HOST_TMP: hostTmp, ...env });
}

function scriptFile(script: Script, name = 'script.json'): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(script));
  return file;
}

const bashThen = (command: string, text = 'done'): Script => ({
  agents: [{ match: {}, turns: [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text }] }],
});

const probe = () => probeResult(readFileSync(path.join(dir, 'probe.txt'), 'utf8'));

describe.skipIf(!available)('murmur run --sandbox', () => {
  it('confines the command: workspace writable, the rest read-only, no secrets, no state, no siblings, no network', async () => {
    const model = scriptFile(bashThen(probeCommand(port)));
    const ran = await murmur([
      'run',
      'probe',
      '--model',
      `scripted:${model}`,
      '--sandbox',
      '--permission-mode',
      'yolo',
    ]);
    expect(ran.stderr).not.toContain('error');
    expect(ran.exitCode).toBe(0);
    expect(probe()).toEqual({
      outside: 'refused',
      host_tmp: 'refused',
      ssh: 'hidden',
      murmur_entries: '0',
      procs: expect.stringMatching(/^[1-8]$/),
      host_bin: '0',
      net: expect.stringMatching(/^(ECONNREFUSED|ENETUNREACH)$/),
      tools: 'ok',
      workspace: 'written',
    });
    expect(existsSync(path.join(outside, 'written'))).toBe(false);
    expect(existsSync(path.join(hostTmp, 'written'))).toBe(false);
    expect(readFileSync(path.join(dir, 'made.txt'), 'utf8')).toBe('inside\n');
    // Saved with the run, so a resume keeps it.
    const [id] = readdirSync(path.join(dir, '.murmur', 'sessions'));
    const state = JSON.parse(readFileSync(path.join(dir, '.murmur', 'sessions', id!, 'state.json'), 'utf8'));
    expect(state.settings).toMatchObject({ sandbox: true });
  });

  it('the same command unconfined sees the host (the probe tells the two apart)', async () => {
    const model = scriptFile(bashThen(probeCommand(port)));
    const ran = await murmur(['run', 'probe', '--model', `scripted:${model}`, '--permission-mode', 'yolo']);
    expect(ran.exitCode).toBe(0);
    expect(probe()).toMatchObject({ outside: 'written', ssh: 'visible', net: 'connected', tools: 'ok' });
    expect(Number(probe().host_bin)).toBeGreaterThan(0);
  });

  it('[sandbox] network = true lets commands reach the network; unknown keys stay errors', async () => {
    writeFileSync(path.join(dir, 'murmur.toml'), '[sandbox]\nenabled = true\nnetwork = true\n');
    const model = scriptFile(bashThen(probeCommand(port)));
    const ran = await murmur(['run', 'probe', '--model', `scripted:${model}`, '--permission-mode', 'yolo']);
    expect(ran.exitCode).toBe(0);
    expect(probe()).toMatchObject({ net: 'connected', outside: 'refused', ssh: 'hidden' });

    writeFileSync(path.join(dir, 'murmur.toml'), '[sandbox]\nenabled = true\nnetworking = true\n');
    const bad = await murmur(['run', 'probe', '--model', `scripted:${model}`]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('networking');
  });

  it('auto mode runs sandboxed bash without asking only with [sandbox] autoAllowBash', async () => {
    const model = scriptFile(bashThen('echo ran > ran.txt'));
    writeFileSync(path.join(dir, 'murmur.toml'), '[sandbox]\nenabled = true\n');
    // --json: nobody can answer, so a call that needs approval is refused.
    const asked = await murmur(['run', 'go', '--model', `scripted:${model}`, '--permission-mode', 'auto', '--json']);
    expect(asked.exitCode).toBe(0);
    expect(existsSync(path.join(dir, 'ran.txt'))).toBe(false);

    writeFileSync(path.join(dir, 'murmur.toml'), '[sandbox]\nenabled = true\nautoAllowBash = true\n');
    const allowed = await murmur(['run', 'go', '--model', `scripted:${model}`, '--permission-mode', 'auto', '--json']);
    expect(allowed.exitCode).toBe(0);
    expect(readFileSync(path.join(dir, 'ran.txt'), 'utf8')).toBe('ran\n');
  });
});

describe.skipIf(!available)('murmur swarm --sandbox', () => {
  it('worktree items commit in their own worktrees, see no sibling, and are merged back', async () => {
    gitRepo(dir, { 'README.md': 'hello\n' });
    // Each item writes its file, commits it in its worktree (the main repository's .git is writable), and counts
    // the distinct murmur-tools leases it can find in /proc while its siblings run too.
    const command =
      'echo $1 > $1.txt && git add $1.txt && git -c user.name=t -c user.email=t@localhost commit -qm $1 && ' +
      'sleep 1 && for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f 2>/dev/null | grep "^MURMUR_TOOLS_LEASE="; done | ' +
      'sort -u | wc -l > leases-$1.txt && git add leases-$1.txt && git -c user.name=t -c user.email=t@localhost commit -qm leases';
    const model = scriptFile({
      agents: [
        {
          match: { prompt: 'Make (\\S+)' },
          turns: [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: 'made $1' }],
        },
      ],
    });
    const ran = await murmur([
      'swarm',
      '--template',
      'Make {{item}}',
      '--items',
      'one',
      'two',
      'three',
      '--isolation',
      'worktree',
      '--sandbox',
      '--permission-mode',
      'yolo',
      '--model',
      `scripted:${model}`,
      '--json',
    ]);
    expect(ran.stderr).toBe('');
    expect(ran.exitCode).toBe(0);
    const report = JSON.parse(ran.stdout) as { status: string; items: { outcome: string }[] };
    expect(report.items.map((i) => i.outcome)).toEqual(['completed', 'completed', 'completed']);
    for (const item of ['one', 'two', 'three']) {
      expect(readFileSync(path.join(dir, `${item}.txt`), 'utf8')).toBe(`${item}\n`);
      expect(readFileSync(path.join(dir, `leases-${item}.txt`), 'utf8').trim()).toBe('1');
    }
  });

  it('a resumed swarm runs its shells in the sandbox again, without --sandbox', async () => {
    const record = 'echo "$1 $(ls -d /proc/[0-9]* | wc -l)" >> effects.log';
    const model = (slowMs: number) =>
      scriptFile(
        {
          agents: [
            {
              match: { prompt: 'Do slow$' },
              turns: [
                {
                  latencyMs: slowMs,
                  toolCalls: [{ name: 'bash', arguments: { command: 'echo slow 1 >> effects.log' } }],
                },
                { text: 'did slow' },
              ],
            },
            {
              match: { prompt: 'Do (\\S+)' },
              turns: [{ toolCalls: [{ name: 'bash', arguments: { command: record } }] }, { text: 'did $1' }],
            },
          ],
        },
        `script-${slowMs}.json`,
      );
    const events = path.join(dir, 'events.jsonl');
    const child = murmur([
      'swarm',
      '--template',
      'Do {{item}}',
      '--items',
      'a',
      'slow',
      'b',
      '--max-concurrency',
      '1',
      '--sandbox',
      '--permission-mode',
      'yolo',
      '--model',
      `scripted:${model(30_000)}`,
      '--events',
      events,
      '--json',
    ]);
    await waitFor(
      () =>
        existsSync(events) &&
        readEvents(events).some((e) => e.type === 'swarm.item' && e.item === 'slow' && e.state === 'launched')
          ? true
          : undefined,
      20_000,
      'the slow item to start',
    );
    child.kill('SIGINT');
    const first = await child;
    expect(first.exitCode).toBe(130);
    const { sessionId } = JSON.parse(first.stdout) as { sessionId: string };
    const resumed = await murmur(['resume', sessionId, '--json', '--model', `scripted:${model(0)}`]);
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    const lines = readFileSync(path.join(dir, 'effects.log'), 'utf8').trim().split('\n').sort();
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['a', 'b', 'slow']);
    // In its own PID namespace a command sees a handful of processes; unconfined it would see the whole machine.
    for (const line of lines) expect(Number(line.split(' ')[1])).toBeLessThanOrEqual(8);
  });
});

// A fake PATH without bwrap: these hold on any machine, with or without bubblewrap.
describe('a sandbox that cannot work: exit 2 before anything starts', () => {
  const model = () => scriptFile(bashThen('echo ran > ran.txt'));
  const sessions = () =>
    existsSync(path.join(dir, '.murmur', 'sessions')) ? readdirSync(path.join(dir, '.murmur', 'sessions')) : [];

  it('bwrap missing: run, worker and mcp serve name the package bubblewrap', async () => {
    const PATH = pathWithout(dir);
    const run = await murmur(['run', 'go', '--model', `scripted:${model()}`, '--sandbox'], { PATH });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('bubblewrap (bwrap) is not on PATH: install the package bubblewrap');
    expect(sessions()).toEqual([]);
    expect(existsSync(path.join(dir, 'ran.txt'))).toBe(false);

    writeFileSync(path.join(dir, 'murmur.toml'), '[sandbox]\nenabled = true\n');
    const fromConfig = await murmur(['run', 'go', '--model', `scripted:${model()}`], { PATH });
    expect(fromConfig.exitCode).toBe(2);
    expect(fromConfig.stderr).toContain('install the package bubblewrap');
    rmSync(path.join(dir, 'murmur.toml'));

    gitRepo(dir, { 'README.md': 'hi\n' });
    const worker = await murmur(['worker', '--sandbox', '--queue', 'redis://127.0.0.1:1'], { PATH });
    expect(worker.exitCode).toBe(2);
    expect(worker.stderr).toContain('murmur worker: the shell sandbox is on, but bubblewrap (bwrap) is not on PATH');

    const serve = await murmur(['mcp', 'serve', '--sandbox', '--model', `scripted:${model()}`], { PATH });
    expect(serve.exitCode).toBe(2);
    expect(serve.stderr).toContain('murmur mcp serve: the shell sandbox is on, but bubblewrap');
  });

  it.runIf(process.getuid?.() === 0)(
    'as root, a workspace owned by another user: exit 2 naming the owner (root without capabilities could not write it), nothing on disk',
    async () => {
      chownSync(dir, 1000, 1000);
      const run = await murmur(['run', 'go', '--model', `scripted:${model()}`, '--sandbox']);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain(`murmur runs as root and ${dir} belongs to uid 1000`);
      expect(run.stderr).toContain('Run murmur as that user');
      expect(sessions()).toEqual([]);
      expect(existsSync(path.join(dir, 'ran.txt'))).toBe(false);
    },
  );

  it('bwrap that cannot create namespaces (a container seccomp profile): exit 2 saying so', async () => {
    const PATH = pathWithout(dir, NO_NAMESPACES_BWRAP);
    const run = await murmur(['run', 'go', '--model', `scripted:${model()}`, '--sandbox'], { PATH });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('bubblewrap cannot create the namespaces it needs here');
    expect(run.stderr).toContain('No permissions to creating new namespace');
    expect(run.stderr).toContain('seccomp');
    expect(sessions()).toEqual([]);
  });
});
