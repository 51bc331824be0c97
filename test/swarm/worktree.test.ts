// Worktree isolation in a real git repository: each worker edits its own worktree on a branch from HEAD, and
// its changes are merged back into the main working tree when it completes; a conflict keeps the branch.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { eventsOf, git, gitRepo, makeEngine, removeDir, tempDir, toolResults, resultText, type TestEngine } from './helpers.js';

let dir: string;
let t: TestEngine | undefined;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  await removeDir(dir);
});

const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
const branches = () => git(dir, 'branch', '--list', 'murmur/*', '--format=%(refname:short)').split('\n').filter(Boolean);

describe('isolation: worktree', () => {
  it('two workers edit different files: both are merged into the main working tree', async () => {
    gitRepo(dir, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    const cwds = new Map<string, string>();
    t = makeEngine(dir, {
      agents: [
        {
          match: { role: 'worker', prompt: 'Shout (\\S+)' },
          turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'pwd' } }, { name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'A', replace_all: true } }] }, { text: 'shouted $1' }],
        },
      ],
    });
    const answer = await t.swarm({ promptTemplate: 'Shout {{item}}', items: ['a.txt', 'b.txt'], isolation: 'worktree' });
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    expect(read('a.txt')).toBe('AlphA\n');
    expect(read('b.txt')).toBe('betA\n');
    // Merged as working-tree changes (nothing committed on the user's branch), with murmur's state out of the way.
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt\n M b.txt\n');
    expect(git(dir, 'log', '--oneline').trim().split('\n')).toHaveLength(1);
    // Each worker ran in its own worktree, which is gone afterwards with its branch.
    for (const id of ['a-1', 'a-2']) {
      const [pwd] = toolResults(t.engine.scheduler.get(id)!.agent.state.messages);
      cwds.set(id, resultText(pwd!));
    }
    expect(cwds.get('a-1')).toContain(path.join('worktrees', 's-1', 'item-1'));
    expect(cwds.get('a-2')).toContain(path.join('worktrees', 's-1', 'item-2'));
    expect(branches()).toEqual([]);
    expect(git(dir, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('two workers edit the same line: one merges, the other is a conflict and keeps its branch', async () => {
    gitRepo(dir, { 'shared.txt': 'line one\nline two\n' });
    t = makeEngine(dir, {
      agents: [
        {
          match: { role: 'worker', prompt: 'Set (\\S+)' },
          turns: [{ toolCalls: [{ name: 'edit', arguments: { path: 'shared.txt', old_string: 'line one', new_string: 'line by $1' } }] }, { text: 'set $1' }],
        },
        {
          // The second one finishes later, so it is the one that conflicts.
          match: { role: 'worker', prompt: 'Later (\\S+)' },
          turns: [
            { toolCalls: [{ name: 'edit', arguments: { path: 'shared.txt', old_string: 'line one', new_string: 'line by $1' } }] },
            { latencyMs: 150, text: 'set $1' },
          ],
        },
      ],
    });
    const answer = await t.swarm({ promptTemplate: '{{item}}', items: ['Set first', 'Later second'], isolation: 'worktree' });
    const report = answer.ok ? answer.report : '';
    expect(report).toContain('<summary>completed: 1, conflict: 1</summary>');
    expect(report).toContain('<subagent agent_id="a-1" item="Set first" outcome="completed" rounds="0">set first</subagent>');
    expect(report).toMatch(/<subagent agent_id="a-2" item="Later second" outcome="conflict" rounds="0" branch="murmur\/s-1\/item-2" reason="its changes do not apply to the working tree: [^"]+">set second<\/subagent>/);
    // A conflict is not something to resume: its work is on the branch.
    expect(report).not.toContain('<resume_hint>');
    expect(read('shared.txt')).toBe('line by first\nline two\n');
    expect(branches()).toEqual(['murmur/s-1/item-2']);
    expect(git(dir, 'show', 'murmur/s-1/item-2:shared.txt')).toBe('line by second\nline two\n');
    expect(eventsOf(t.events, 'swarm.item').find((e) => e.state === 'conflict')).toMatchObject({ item: 'Later second', agentId: 'a-2' });
  });

  it('with verify: the verifier checks the worktree, and only a passing item is merged', async () => {
    gitRepo(dir, { 'v.txt': 'v0\n', 'w.txt': 'v0\n' });
    const script: Script = {
      agents: [
        {
          match: { role: 'worker', prompt: 'Bump (\\S+)' },
          turns: [{ toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v0', new_string: 'v1' } }] }, { text: 'bumped $1' }],
        },
        { match: { role: 'verifier', prompt: '<item>w.txt</item>' }, turns: [{ text: 'VERDICT: fail\nno' }] },
        { match: { role: 'verifier' }, turns: [{ toolCalls: [{ name: 'read', arguments: { path: 'v.txt' } }] }, { text: 'VERDICT: pass' }] },
      ],
    };
    t = makeEngine(dir, script);
    const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['v.txt', 'w.txt'], isolation: 'worktree', verify: true, maxRounds: 1 });
    expect(answer.ok && answer.report).toContain('<summary>completed: 1, failed: 1</summary>');
    expect(read('v.txt')).toBe('v1\n');
    expect(read('w.txt')).toBe('v0\n');
    // The verifier read the worker's worktree, where the change is.
    const verifier = eventsOf(t.events, 'agent.start').find((e) => e.role === 'verifier' && e.item === 'v.txt')!;
    const [readResult] = toolResults(t.engine.scheduler.get(verifier.agentId)!.agent.state.messages);
    expect(resultText(readResult!)).toContain('v1');
  });

  it('from a workspace inside the repository, workers start in the same folder of their worktrees', async () => {
    gitRepo(dir, { 'pkg/x.txt': 'x0\n', 'pkg/y.txt': 'y0\n', 'x.txt': 'top\n' });
    const sub = path.join(dir, 'pkg');
    t = makeEngine(sub, {
      agents: [
        {
          match: { prompt: 'Bump (\\S+)' },
          turns: [
            {
              toolCalls: [
                { name: 'edit', arguments: { path: '$1', old_string: '0', new_string: '1' } },
                { name: 'write', arguments: { path: 'new-$1', content: 'new\n' } },
              ],
            },
            { text: 'ok' },
          ],
        },
      ],
    });
    const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['x.txt', 'y.txt'], isolation: 'worktree' });
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    expect(read('pkg/x.txt')).toBe('x1\n');
    expect(read('pkg/y.txt')).toBe('y1\n');
    expect(read('x.txt')).toBe('top\n');
    // New files are merged too, and only murmur's own folder (pkg/.murmur) is kept out of git status.
    expect(read('pkg/new-x.txt')).toBe('new\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(' M pkg/x.txt\n M pkg/y.txt\n?? pkg/new-x.txt\n?? pkg/new-y.txt\n');
    expect(readFileSync(path.join(dir, '.git', 'info', 'exclude'), 'utf8')).toContain('\n/pkg/.murmur/\n');
  });

  it('outside a git repository: a clear error before anything starts', async () => {
    t = makeEngine(dir, { agents: [] });
    const answer = await t.swarm({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], isolation: 'worktree' });
    expect(answer).toEqual({ ok: false, error: expect.stringContaining(`isolation "worktree" needs a git repository, and ${dir} is not inside one`) });
    expect(t.engine.scheduler.spawnedCount).toBe(0);
  });

  it('in a repository without a commit: a clear error before anything starts', async () => {
    git(dir, 'init', '-q');
    t = makeEngine(dir, { agents: [] });
    const answer = await t.swarm({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], isolation: 'worktree' });
    expect(answer).toEqual({ ok: false, error: expect.stringContaining('needs a commit to branch from') });
    expect(existsSync(path.join(dir, 'worktrees'))).toBe(false);
  });
});
