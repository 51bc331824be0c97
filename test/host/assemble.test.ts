// The host assembly from plain values: a bad rule fails before anything is on disk, the session exists before the
// engine and is the engine's, the abort signal reaches the engine, and approval prompts name the asking agent's parents.
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assembleEngine } from '../../host/assemble.js';
import { HostInputError } from '../../host/errors.js';
import { EventBus } from '../../orchestrator/events.js';
import { ScriptedModel } from '../../orchestrator/models/scripted.js';
import type { ApprovalRequest } from '../../orchestrator/permissions/asker.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-host-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = (script: ConstructorParameters<typeof ScriptedModel>[0]) => ({
  cwd: dir,
  config: {},
  env: {},
  bus: new EventBus(),
  provider: new ScriptedModel(script),
  frontEnd: 'cli' as const,
  sessionKind: 'run' as const,
});

describe('assembleEngine', () => {
  it('refuses a bad permission rule naming the option, leaving no session behind', async () => {
    const error = await assembleEngine({
      ...base({ agents: [] }),
      config: { permissions: { deny: ['Read(('] } },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostInputError);
    expect((error as HostInputError).option).toBe('permissions');
    expect(existsSync(path.join(dir, '.murmur'))).toBe(false);
  });

  it('builds the session first and hands it to the engine; the signal aborts the run', async () => {
    const controller = new AbortController();
    const { engine, close } = await assembleEngine({
      ...base({ agents: [{ turns: [{ latencyMs: 5_000, text: 'late' }] }] }),
      signal: controller.signal,
    });
    expect(engine.session?.dir.startsWith(path.join(dir, '.murmur', 'sessions'))).toBe(true);
    const started = new Promise<void>((resolve) => engine.bus.on('turn.start', () => resolve()));
    const running = engine.runTask('wait');
    await started;
    controller.abort();
    expect((await running).status).toBe('aborted');
    await close();
  });

  it('approval prompts name the asking agent and its parent chain (the lookup into the engine is linked)', async () => {
    const asked: ApprovalRequest[] = [];
    const script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { description: 'child', prompt: 'run ls', subagent_type: 'worker' } },
              ],
            },
            { text: 'done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }] }, { text: 'listed' }],
        },
      ],
    };
    const { engine, close } = await assembleEngine({
      ...base(script),
      session: false,
      asker: {
        approve: async (request) => (asked.push(request), { kind: 'deny' }),
        question: async () => undefined,
        plan: async () => undefined,
      },
    });
    await engine.runTask('delegate');
    await close();
    expect(asked).toHaveLength(1);
    expect(asked[0]!.requester.role).toBe('worker');
    expect(asked[0]!.requester.chain).toEqual([{ agentId: 'main', role: 'main' }]);
  });
});
