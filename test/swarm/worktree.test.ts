// Worktree isolation in a real git repository: each worker edits its own worktree on a branch from HEAD, and
// its changes are merged back into the main working tree when it completes; a conflict keeps the branch.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { WorktreeIsolation } from '../../swarm/worktree.js';
import {
  eventsOf,
  commitAll,
  git,
  gitRepo,
  makeEngine,
  removeDir,
  tempDir,
  toolResults,
  resultText,
  type TestEngine,
} from './helpers.js';

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
const branches = () =>
  git(dir, 'branch', '--list', 'murmur/*', '--format=%(refname:short)').split('\n').filter(Boolean);
/** Branches carry the run's (session's) id, so another run's kept branches never collide with this one's. */
const branch = (swarm: string, item: number) => `murmur/${t!.engine.session!.id}/${swarm}/item-${item}`;
const worktree = (swarm: string, item: number) => path.join(t!.engine.session!.dir, 'worktrees', swarm, `item-${item}`);
const worktreeCount = () => git(dir, 'worktree', 'list').trim().split('\n').length;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('isolation: worktree', () => {
  it('two workers edit different files: both are merged into the main working tree', async () => {
    gitRepo(dir, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    const cwds = new Map<string, string>();
    t = makeEngine(dir, {
      agents: [
        {
          match: { role: 'worker', prompt: 'Shout (\\S+)' },
          turns: [
            {
              toolCalls: [
                { name: 'bash', arguments: { command: 'pwd' } },
                { name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'A', replace_all: true } },
              ],
            },
            { text: 'shouted $1' },
          ],
        },
      ],
    });
    const answer = await t.swarm({
      promptTemplate: 'Shout {{item}}',
      items: ['a.txt', 'b.txt'],
      isolation: 'worktree',
    });
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    expect(read('a.txt')).toBe('AlphA\n');
    expect(read('b.txt')).toBe('betA\n');
    // Merged as working-tree changes (nothing committed on the user's branch), with murmur's state out of the way.
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt\n M b.txt\n');
    expect(git(dir, 'log', '--oneline').trim().split('\n')).toHaveLength(1);
    // Each worker ran in its own worktree, which is gone afterwards with its branch.
    for (const id of ['a-1', 'a-2']) {
      const [pwd] = toolResults(t.engine.agentTree.get(id)!.agent.state.messages);
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
          turns: [
            {
              toolCalls: [
                { name: 'edit', arguments: { path: 'shared.txt', old_string: 'line one', new_string: 'line by $1' } },
              ],
            },
            { text: 'set $1' },
          ],
        },
        {
          // The second one finishes later, so it is the one that conflicts.
          match: { role: 'worker', prompt: 'Later (\\S+)' },
          turns: [
            {
              toolCalls: [
                { name: 'edit', arguments: { path: 'shared.txt', old_string: 'line one', new_string: 'line by $1' } },
              ],
            },
            { latencyMs: 150, text: 'set $1' },
          ],
        },
      ],
    });
    const answer = await t.swarm({
      promptTemplate: '{{item}}',
      items: ['Set first', 'Later second'],
      isolation: 'worktree',
    });
    const report = answer.ok ? answer.report : '';
    expect(report).toContain('<summary>completed: 1, conflict: 1</summary>');
    expect(report).toContain(
      '<subagent agent_id="a-1" item="Set first" outcome="completed" rounds="0">set first</subagent>',
    );
    expect(report).toMatch(
      new RegExp(
        `<subagent agent_id="a-2" item="Later second" outcome="conflict" rounds="0" branch="${escaped(branch('s-1', 2))}" reason="its changes do not apply to the working tree: [^"]+">set second</subagent>`,
      ),
    );
    // A conflict is not something to resume: its work is on the branch.
    expect(report).not.toContain('<resume_hint>');
    expect(read('shared.txt')).toBe('line by first\nline two\n');
    expect(branches()).toEqual([branch('s-1', 2)]);
    expect(git(dir, 'show', `${branch('s-1', 2)}:shared.txt`)).toBe('line by second\nline two\n');
    expect(eventsOf(t.events, 'swarm.item').find((e) => e.state === 'conflict')).toMatchObject({
      item: 'Later second',
      agentId: 'a-2',
    });
  });

  it('with verify: the verifier checks the worktree, and only a passing item is merged', async () => {
    gitRepo(dir, { 'v.txt': 'v0\n', 'w.txt': 'v0\n' });
    const script: Script = {
      agents: [
        {
          match: { role: 'worker', prompt: 'Bump (\\S+)' },
          turns: [
            { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v0', new_string: 'v1' } }] },
            { text: 'bumped $1' },
          ],
        },
        { match: { role: 'verifier', prompt: '<item>w.txt</item>' }, turns: [{ text: 'VERDICT: fail\nno' }] },
        {
          match: { role: 'verifier' },
          turns: [{ toolCalls: [{ name: 'read', arguments: { path: 'v.txt' } }] }, { text: 'VERDICT: pass' }],
        },
      ],
    };
    t = makeEngine(dir, script);
    const answer = await t.swarm({
      promptTemplate: 'Bump {{item}}',
      items: ['v.txt', 'w.txt'],
      isolation: 'worktree',
      verify: true,
      maxRounds: 1,
    });
    expect(answer.ok && answer.report).toContain('<summary>completed: 1, failed: 1</summary>');
    expect(read('v.txt')).toBe('v1\n');
    expect(read('w.txt')).toBe('v0\n');
    // The failed item's work is kept where a resume goes on from it, and the report says where.
    expect(answer.ok && answer.report).toContain(
      `item="w.txt" outcome="failed" verdict="fail" rounds="1" branch="${branch('s-1', 2)}" worktree="${worktree('s-1', 2)}" reason="failed verification after 1 round(s): no">`,
    );
    expect(readFileSync(path.join(worktree('s-1', 2), 'w.txt'), 'utf8')).toBe('v1\n');
    expect(branches()).toEqual([branch('s-1', 2)]);
    // The verifier read the worker's worktree, where the change is.
    const verifier = eventsOf(t.events, 'agent.start').find((e) => e.role === 'verifier' && e.item === 'v.txt')!;
    const [readResult] = toolResults(t.engine.agentTree.get(verifier.agentId)!.agent.state.messages);
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
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(
      ' M pkg/x.txt\n M pkg/y.txt\n?? pkg/new-x.txt\n?? pkg/new-y.txt\n',
    );
    expect(readFileSync(path.join(dir, '.git', 'info', 'exclude'), 'utf8')).toContain('\n/pkg/.murmur/\n');
  });

  it('a worker that commits its own work: the commit is merged, not lost', async () => {
    gitRepo(dir, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    t = makeEngine(dir, {
      agents: [
        {
          match: { role: 'worker', prompt: 'Shout (\\S+)' },
          turns: [
            {
              toolCalls: [
                { name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'A', replace_all: true } },
              ],
            },
            {
              toolCalls: [
                {
                  name: 'bash',
                  arguments: {
                    command:
                      'git add -A && git -c user.name=w -c user.email=w@localhost -c commit.gpgsign=false commit -qm "shout $1"',
                  },
                },
              ],
            },
            { text: 'shouted and committed $1' },
          ],
        },
      ],
    });
    const answer = await t.swarm({
      promptTemplate: 'Shout {{item}}',
      items: ['a.txt', 'b.txt'],
      isolation: 'worktree',
    });
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    const [, commit] = toolResults(t.engine.agentTree.get('a-1')!.agent.state.messages);
    expect(commit!.isError).toBe(false);
    expect(read('a.txt')).toBe('AlphA\n');
    expect(read('b.txt')).toBe('betA\n');
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt\n M b.txt\n');
    expect(branches()).toEqual([]);
    expect(worktreeCount()).toBe(1);
  });

  it('a failed item keeps its branch; its worktree only while it holds changes', async () => {
    gitRepo(dir, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    t = makeEngine(dir, {
      agents: [
        // Edits, then the provider fails it: its change must stay for a resume.
        {
          match: { role: 'worker', prompt: 'Edit a.txt' },
          turns: [
            { toolCalls: [{ name: 'edit', arguments: { path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' } }] },
            { failFirst: { status: 400, times: 1, message: 'broke' } },
          ],
        },
        // Fails before it changed anything.
        {
          match: { role: 'worker', prompt: 'Edit b.txt' },
          turns: [{ failFirst: { status: 400, times: 1, message: 'broke early' } }],
        },
      ],
    });
    const answer = await t.swarm({ promptTemplate: 'Edit {{item}}', items: ['a.txt', 'b.txt'], isolation: 'worktree' });
    const report = answer.ok ? answer.report : '';
    expect(report).toContain('<summary>failed: 2</summary>');
    expect(report).toContain(
      `<subagent agent_id="a-1" item="a.txt" outcome="failed" rounds="0" branch="${branch('s-1', 1)}" worktree="${worktree('s-1', 1)}" reason="broke">`,
    );
    expect(report).toContain(
      `<subagent agent_id="a-2" item="b.txt" outcome="failed" rounds="0" branch="${branch('s-1', 2)}" reason="broke early">`,
    );
    expect(readFileSync(path.join(worktree('s-1', 1), 'a.txt'), 'utf8')).toBe('ALPHA\n');
    // The empty worktree is gone; both branches stay (a resume goes on from them), the main tree is untouched.
    expect(existsSync(worktree('s-1', 2))).toBe(false);
    expect(worktreeCount()).toBe(2);
    expect(branches().sort()).toEqual([branch('s-1', 1), branch('s-1', 2)]);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('outside a git repository: a clear error before anything starts', async () => {
    t = makeEngine(dir, { agents: [] });
    const answer = await t.swarm({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], isolation: 'worktree' });
    expect(answer).toEqual({
      ok: false,
      error: expect.stringContaining(`isolation "worktree" needs a git repository, and ${dir} is not inside one`),
    });
    expect(t.engine.agentTree.spawnedCount).toBe(0);
  });

  it('in a repository without a commit: a clear error before anything starts', async () => {
    git(dir, 'init', '-q');
    t = makeEngine(dir, { agents: [] });
    const answer = await t.swarm({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], isolation: 'worktree' });
    expect(answer).toEqual({ ok: false, error: expect.stringContaining('needs a commit to branch from') });
    expect(existsSync(path.join(dir, 'worktrees'))).toBe(false);
  });
});

describe('isolation: worktree, resuming', () => {
  const script: Script = {
    agents: [
      {
        match: { role: 'worker', prompt: 'Fix a.txt' },
        turns: [
          { toolCalls: [{ name: 'edit', arguments: { path: 'a.txt', old_string: 'a1', new_string: 'A1' } }] },
          { text: 'fixed a.txt' },
        ],
      },
      {
        // Edits its first line, fails on its second step, and finishes when resumed.
        match: { role: 'worker', prompt: 'Fix b.txt' },
        turns: [
          { toolCalls: [{ name: 'edit', arguments: { path: 'b.txt', old_string: 'b1', new_string: 'B1' } }] },
          {
            failFirst: { status: 400, times: 1, message: 'provider hiccup' },
            toolCalls: [{ name: 'edit', arguments: { path: 'b.txt', old_string: 'b2', new_string: 'B2' } }],
          },
          { text: 'fixed b.txt' },
        ],
      },
    ],
  };

  it('a resumed subagent goes on in its own worktree, and that worktree is what gets merged', async () => {
    gitRepo(dir, { 'a.txt': 'a1\n', 'b.txt': 'b1\nb2\n' });
    t = makeEngine(dir, script);
    const first = await t.swarm({ promptTemplate: 'Fix {{item}}', items: ['a.txt', 'b.txt'], isolation: 'worktree' });
    expect(first.ok && first.report).toContain(
      `item="b.txt" outcome="failed" rounds="0" branch="${branch('s-1', 2)}" worktree="${worktree('s-1', 2)}"`,
    );
    expect(first.ok && first.report).toContain('resume_agent_ids ["a-2"] and isolation "worktree"');
    expect(read('b.txt')).toBe('b1\nb2\n');

    const second = await t.swarm({ items: [], resumeAgentIds: ['a-2'], isolation: 'worktree' });
    expect(second.ok && second.report).toBe(
      [
        '<agent_swarm_result>',
        '<summary>completed: 1</summary>',
        '<subagent agent_id="a-2" item="b.txt" outcome="completed" rounds="0">fixed b.txt</subagent>',
        '</agent_swarm_result>',
      ].join('\n'),
    );
    // Both edits, the one from before the failure and the one after the resume, reached the main tree.
    expect(read('a.txt')).toBe('A1\n');
    expect(read('b.txt')).toBe('B1\nB2\n');
    // The second swarm made no worktree of its own; the first swarm's one is merged and gone, with its branch.
    expect(existsSync(worktree('s-2', 1))).toBe(false);
    expect(existsSync(worktree('s-1', 2))).toBe(false);
    expect(branches()).toEqual([]);
    expect(worktreeCount()).toBe(1);
  });

  it('refuses, before anything starts, a resume that could not merge soundly', async () => {
    gitRepo(dir, { 'a.txt': 'a1\n', 'b.txt': 'b1\nb2\n' });
    t = makeEngine(dir, script);
    await t.swarm({ promptTemplate: 'Fix {{item}}', items: ['a.txt', 'b.txt'], isolation: 'worktree' });
    const spawned = t.engine.agentTree.spawnedCount;
    const without = await t.swarm({ items: [], resumeAgentIds: ['a-2'] });
    expect(without).toEqual({
      ok: false,
      error: expect.stringContaining(
        `subagent "a-2" works in its own git worktree (${worktree('s-1', 2)}); resume it with isolation "worktree"`,
      ),
    });

    // A subagent of a swarm without isolation cannot move into a worktree.
    await t.swarm({ promptTemplate: 'Fix {{item}}', items: ['b.txt', 'a.txt'] });
    const moved = await t.swarm({ items: [], resumeAgentIds: ['a-3'], isolation: 'worktree' });
    expect(moved).toEqual({
      ok: false,
      error: expect.stringContaining(
        'subagent "a-3" worked in the main working tree and cannot move into a worktree now',
      ),
    });
    expect(t.engine.agentTree.spawnedCount).toBe(spawned + 2);
    expect(eventsOf(t.events, 'swarm.start').map((e) => e.swarmId)).toEqual(['s-1', 's-2']);
  });
});

describe('WorktreeIsolation after a crash', () => {
  const open = () =>
    WorktreeIsolation.open(dir, path.join(dir, '.murmur', 'sessions', 'x'), 's-1', path.join(dir, '.murmur'), 'x');

  it('merges a commit made just before the crash, even when HEAD moved on since', async () => {
    gitRepo(dir, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const before = await open();
    if (typeof before === 'string') throw new Error(before);
    const workspace = await before.prepare(0);
    // The agent's shell has the whole tree (a new worktree gets its files before a shell runs).
    await before.wholePath(0);
    writeFileSync(path.join(workspace, 'a.txt'), 'A\n');
    // mergeBack's commit, and then the process dies before the apply.
    commitAll(workspace, 'murmur swarm: a', 'murmur');
    // Meanwhile the user commits elsewhere: the merge must not undo that.
    writeFileSync(path.join(dir, 'b.txt'), 'B\n');
    git(
      dir,
      '-c',
      'user.name=u',
      '-c',
      'user.email=u@localhost',
      '-c',
      'commit.gpgsign=false',
      'commit',
      '-qam',
      'user work',
    );

    const after = await open();
    if (typeof after === 'string') throw new Error(after);
    expect(await after.prepare(0)).toBe(workspace);
    expect(await after.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    expect(read('a.txt')).toBe('A\n');
    expect(read('b.txt')).toBe('B\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe(' M a.txt\n');
    expect(branches()).toEqual([]);
  });

  it('counts changes applied just before the crash as merged, not as a conflict', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const before = await open();
    if (typeof before === 'string') throw new Error(before);
    const workspace = await before.prepare(0);
    writeFileSync(path.join(workspace, 'a.txt'), 'A\n');
    commitAll(workspace, 'murmur swarm: a', 'murmur');
    writeFileSync(path.join(dir, 'a.txt'), 'A\n'); // applied, then the crash

    const after = await open();
    if (typeof after === 'string') throw new Error(after);
    expect(await after.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    expect(read('a.txt')).toBe('A\n');
    expect(branches()).toEqual([]);
  });

  it('an added line applied just before the crash is not added a second time', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const before = await open();
    if (typeof before === 'string') throw new Error(before);
    const workspace = await before.prepare(0);
    // Only an added line: its context is still there after the apply, so the patch would apply forward again.
    writeFileSync(path.join(workspace, 'a.txt'), 'a\nchanged\n');
    commitAll(workspace, 'murmur swarm: a', 'murmur');
    writeFileSync(path.join(dir, 'a.txt'), 'a\nchanged\n'); // applied, then the crash

    const after = await open();
    if (typeof after === 'string') throw new Error(after);
    expect(await after.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    expect(read('a.txt')).toBe('a\nchanged\n');
  });

  it('a new agent for an item gets its worktree back as its branch started: a lost attempt leaves nothing to merge', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const before = await open();
    if (typeof before === 'string') throw new Error(before);
    const workspace = await before.prepare(0);
    // The lost attempt: an edit and a new file, then the process dies before the state names its agent.
    writeFileSync(path.join(workspace, 'a.txt'), 'a\nchanged\n');
    writeFileSync(path.join(workspace, 'new.txt'), 'x\n');

    const after = await open();
    if (typeof after === 'string') throw new Error(after);
    expect(await after.prepareFresh(0)).toBe(workspace);
    expect(readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(path.join(workspace, 'new.txt'))).toBe(false);
    // The new agent's own change is what gets merged, once.
    writeFileSync(path.join(workspace, 'a.txt'), 'a\nchanged\n');
    expect(await after.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    expect(read('a.txt')).toBe('a\nchanged\n');
  });
});
