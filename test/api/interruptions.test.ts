// A run that needs a person with nobody there ends `waiting` with its interruptions as data; an abort keeps what was
// being asked; resume(id, { answers }) runs the waiting call exactly where it stopped (once), or refuses it with the
// person's reason; a swarm holds many requests at once while its other items finish.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMurmur,
  defineTool,
  MurmurOptionsError,
  textResult,
  Type,
  type MurmurOptions,
  type RunReport,
} from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-interruptions-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A tool that needs a person for labels starting with "ask", and records every run. */
function stampTool() {
  const ran: string[] = [];
  const tool = defineTool({
    def: {
      name: 'stamp',
      description: 'Stamps a label.',
      parameters: Type.Object({ label: Type.String() }),
      needsApproval: ({ label }) => label.startsWith('ask'),
    },
    execute: (_ctx, { label }) => {
      ran.push(label);
      return textResult(`stamped ${label}`);
    },
  });
  return { tool, ran };
}

const stampThenAnswer = scriptedModel({
  agents: [
    {
      match: { prompt: 'stamp (\\S+)' },
      turns: [{ toolCalls: [{ name: 'stamp', arguments: { label: '$1' } }] }, { text: 'stamped $1' }],
    },
  ],
});

/** The main agent's transcript of a session, as written. */
function mainTranscript(sessionId: string): string {
  return readFileSync(path.join(dir, '.murmur', 'sessions', sessionId, 'agents', 'main', 'transcript.jsonl'), 'utf8');
}

async function withMurmur<T>(
  options: Omit<MurmurOptions, 'cwd'>,
  body: (m: Awaited<ReturnType<typeof createMurmur>>) => Promise<T>,
) {
  const murmur = await createMurmur({ cwd: dir, model: stampThenAnswer, permissionMode: 'manual', ...options });
  try {
    return await body(murmur);
  } finally {
    await murmur.close();
  }
}

describe('a run that waits for a person', () => {
  it('ends waiting with one interruption; resumed without an answer it still waits; approved, the tool runs once', async () => {
    const { tool, ran } = stampTool();
    const tools = [{ tool, roles: ['main'] }];
    const first = await withMurmur({ tools }, (m) => m.run('stamp ask-1').done);
    expect(first.status).toBe('waiting');
    expect(first.interruptions).toHaveLength(1);
    const [waiting] = first.interruptions!;
    expect(waiting).toMatchObject({
      kind: 'approval',
      agentId: 'main',
      tool: 'stamp',
      call: 'stamp {"label":"ask-1"}',
    });
    expect(typeof waiting!.at).toBe('number');
    expect(ran).toEqual([]);
    // The saved state says so: status waiting, the interruption, the main agent waiting.
    const state = JSON.parse(
      readFileSync(path.join(dir, '.murmur', 'sessions', first.sessionId!, 'state.json'), 'utf8'),
    );
    expect(state).toMatchObject({ version: 4, status: 'waiting', interruptions: [{ callId: waiting!.callId }] });
    expect(state.agents[0].status).toBe('waiting');

    const again = await withMurmur({ tools }, (m) => m.resume(first.sessionId!).done);
    expect(again).toMatchObject({ kind: 'run', status: 'waiting' });
    expect(again.interruptions).toEqual([waiting]);
    expect(ran).toEqual([]);

    const answered = await withMurmur(
      { tools },
      (m) => m.resume(first.sessionId!, { answers: { [`main/${waiting!.callId}`]: { kind: 'allow_once' } } }).done,
    );
    expect(answered).toMatchObject({ kind: 'run', status: 'completed', result: 'stamped ask-1' });
    expect(answered.interruptions).toBeUndefined();
    expect(ran).toEqual(['ask-1']);
    // The session kept its start across the three processes' segments.
    const last = JSON.parse(
      readFileSync(path.join(dir, '.murmur', 'sessions', first.sessionId!, 'state.json'), 'utf8'),
    );
    expect(last.createdAt).toBe(state.createdAt);
    expect(last.segments.map((s: { ended: string }) => s.ended)).toEqual(['waiting', 'waiting', 'completed']);
  });

  it('a pending approval survives an abort: aborted while asked, the resume asks again; denied, the model hears why', async () => {
    const { tool, ran } = stampTool();
    const tools = [{ tool, roles: ['main'] }];
    let asked = 0;
    const controller = new AbortController();
    const aborted = await withMurmur(
      {
        tools,
        // A person who never answers; the run is aborted while the prompt is up.
        onApproval: (_request, signal) =>
          new Promise((resolve) => {
            asked++;
            signal.addEventListener('abort', () => resolve(undefined));
            setTimeout(() => controller.abort('stop for now'), 20);
          }),
      },
      (m) => m.run('stamp ask-2', { signal: controller.signal }).done,
    );
    expect(asked).toBe(1);
    expect(aborted.status).toBe('aborted');
    expect(aborted.interruptions?.map((i) => i.tool)).toEqual(['stamp']);
    // No "withdrawn, do not retry" went to the model: the call is still open.
    const transcript = mainTranscript(aborted.sessionId!);
    expect(transcript).not.toContain('withdrawn');

    const callId = aborted.interruptions![0]!.callId;
    await expect(
      withMurmur({ tools }, async (m) =>
        m.resume(aborted.sessionId!, { answers: { [callId]: { kind: 'approve' } as never } }),
      ),
    ).rejects.toThrow(MurmurOptionsError);
    await expect(
      withMurmur({ tools }, async (m) =>
        m.resume(aborted.sessionId!, { answers: { 'nope/x': { kind: 'allow_once' } } }),
      ),
    ).rejects.toThrow(/no call "nope\/x" waits for an answer; waiting: main\//);

    const denied = await withMurmur(
      { tools },
      (m) => m.resume(aborted.sessionId!, { answers: { [callId]: { kind: 'deny', feedback: 'not today' } } }).done,
    );
    expect(denied.status).toBe('completed');
    expect(ran).toEqual([]);
    const after = mainTranscript(aborted.sessionId!);
    expect(after).toContain('The user said: \\"not today\\"');
  });

  it('a 10-item swarm with 4 items needing approval ends waiting with 4 interruptions and 6 items done; answered, all complete', async () => {
    const { tool, ran } = stampTool();
    const tools = [{ tool, roles: ['worker'] }];
    const items = ['ask-1', 'ok-1', 'ask-2', 'ok-2', 'ok-3', 'ask-3', 'ok-4', 'ask-4', 'ok-5', 'ok-6'];
    const first = await withMurmur(
      { tools },
      (m) => m.swarm({ template: 'stamp {{item}}', items, maxConcurrency: 2 }).done,
    );
    expect(first.status).toBe('waiting');
    expect(first.summary).toEqual({ completed: 6, waiting: 4 });
    expect(first.interruptions).toHaveLength(4);
    expect(new Set(first.interruptions!.map((i) => i.agentId)).size).toBe(4);
    expect(ran.sort()).toEqual(['ok-1', 'ok-2', 'ok-3', 'ok-4', 'ok-5', 'ok-6']);

    const answers = Object.fromEntries(
      first.interruptions!.map((i) => [`${i.agentId}/${i.callId}`, { kind: 'allow_once' as const }]),
    );
    const done = await withMurmur({ tools }, (m) => m.resume(first.sessionId!, { answers }).done);
    expect(done).toMatchObject({ kind: 'swarm', status: 'completed', summary: { completed: 10 } });
    expect(ran.filter((l) => l.startsWith('ask')).sort()).toEqual(['ask-1', 'ask-2', 'ask-3', 'ask-4']);
    expect(ran).toHaveLength(10);
  });

  it("a subagent's call waits, and so does the parent's agent call; answered, the subagent goes on and the parent gets its handoff", async () => {
    const { tool, ran } = stampTool();
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'stamp ask-9', description: 'stamp it' } }] },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'worker', prompt: 'stamp (\\S+)' },
          turns: [{ toolCalls: [{ name: 'stamp', arguments: { label: '$1' } }] }, { text: 'stamped $1' }],
        },
      ],
    });
    const options = { model, permissionMode: 'yolo' as const, tools: [{ tool, roles: ['worker'] }] };
    const first = await withMurmur(options, (m) => m.run('delegate the stamp').done);
    expect(first.status).toBe('waiting');
    expect(first.interruptions?.map((i) => [i.agentId, i.tool])).toEqual([['a-1', 'stamp']]);
    expect(first.agents.map((a) => [a.id, a.status])).toEqual([
      ['main', 'waiting'],
      ['a-1', 'waiting'],
    ]);
    const { callId } = first.interruptions![0]!;
    const done = await withMurmur(
      options,
      (m) => m.resume(first.sessionId!, { answers: { [`a-1/${callId}`]: { kind: 'allow_once' } } }).done,
    );
    expect(done).toMatchObject({ kind: 'run', status: 'completed', result: 'main done' });
    expect(ran).toEqual(['ask-9']);
    // The same subagent went on (no second one started), and the parent's call got its handoff.
    expect((done as RunReport).agents.map((a) => [a.id, a.status])).toEqual([
      ['main', 'completed'],
      ['a-1', 'completed'],
    ]);
    const transcript = mainTranscript(first.sessionId!);
    expect(transcript).toContain('[subagent a-1 (worker) completed]');
  });

  it('a background subagent is never held (nothing waits on its calls): its request is settled by policy', async () => {
    const { tool, ran } = stampTool();
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'stamp ask-bg', description: 'stamp later', run_in_background: true },
                },
              ],
            },
            { text: 'started it' },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'worker', prompt: 'stamp (\\S+)' },
          turns: [{ toolCalls: [{ name: 'stamp', arguments: { label: '$1' } }] }, { text: 'could not stamp $1' }],
        },
      ],
    });
    const report = await withMurmur(
      { model, permissionMode: 'yolo', tools: [{ tool, roles: ['worker'] }] },
      (m) => m.run('stamp in the background').done,
    );
    expect(report).toMatchObject({ status: 'completed', result: 'main done' });
    expect(report.interruptions).toBeUndefined();
    expect(ran).toEqual([]);
  });

  it('without sessions, or with permissions.headless set, nobody to ask still settles the call by policy', async () => {
    const { tool, ran } = stampTool();
    const tools = [{ tool, roles: ['main'] }];
    const unsaved = await withMurmur({ tools, sessions: false }, (m) => m.run('stamp ask-3').done);
    expect(unsaved.status).toBe('completed');
    const policy = await withMurmur({ tools, permissions: { headless: 'deny' } }, (m) => m.run('stamp ask-4').done);
    expect(policy.status).toBe('completed');
    expect(policy.interruptions).toBeUndefined();
    expect(ran).toEqual([]);
  });
});
