// The tool-context builder alone: one fresh context per agent, made of the run's values and the agent's own root,
// and nothing else — services reach tools through the ports they are made with, never through the context.
import { describe, expect, it } from 'vitest';
import { buildToolContext, type ContextInputs } from '../../orchestrator/agent-context.js';

const inputs: ContextInputs = {
  cwd: '/work/repo',
  workspace: { root: '/work/repo', extraRoots: ['/work/shared'], allowSensitive: [] },
  env: { secretPatterns: ['*_PLAIN'] },
  session: { dir: '/work/repo/.murmur/sessions/s-1', toolOutputsDir: '/work/repo/.murmur/sessions/s-1/tool-outputs' },
};

describe('buildToolContext', () => {
  it('holds who the agent is, where it works, its own read ledger, the session folders and the env policy — no services', () => {
    const context = buildToolContext({ id: 'a-1', profile: { name: 'worker' } }, inputs);
    expect(Object.keys(context).sort()).toEqual(['agentId', 'cwd', 'env', 'reads', 'role', 'session', 'workspace']);
    expect(context).toMatchObject({
      agentId: 'a-1',
      role: 'worker',
      cwd: '/work/repo',
      env: inputs.env,
      session: inputs.session,
    });
    // The run's policy itself, not a copy, when the agent works in the run's workspace.
    expect(context.workspace).toBe(inputs.workspace);
  });

  it('gives every agent its own read ledger', () => {
    const first = buildToolContext({ id: 'a-1', profile: { name: 'worker' } }, inputs);
    const second = buildToolContext({ id: 'a-2', profile: { name: 'worker' } }, inputs);
    first.reads!.recordRead('/work/repo/a.ts', { mtimeMs: 1, size: 2 });
    expect(first.reads!.lastRead('/work/repo/a.ts')).toEqual({ mtimeMs: 1, size: 2 });
    expect(second.reads!.lastRead('/work/repo/a.ts')).toBeUndefined();
  });

  it('follows a worktree root: cwd and the workspace root move, the rest of the policy stays', () => {
    const context = buildToolContext(
      { id: 'a-3', profile: { name: 'worker' }, workspaceRoot: '/work/trees/a-3' },
      inputs,
    );
    expect(context.cwd).toBe('/work/trees/a-3');
    expect(context.workspace).toEqual({ ...inputs.workspace, root: '/work/trees/a-3' });
    expect(inputs.workspace.root).toBe('/work/repo');
  });

  it('has no session without one', () => {
    const context = buildToolContext({ id: 'main', profile: { name: 'main' } }, { ...inputs, session: undefined });
    expect('session' in context).toBe(false);
  });
});
