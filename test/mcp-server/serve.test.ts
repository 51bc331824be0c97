// `murmur mcp serve` driven by the SDK's client: the real server process, a scripted model, a real workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import {
  assertBuilt,
  connect,
  isAlive,
  makeWorkspace,
  removeWorkspaces,
  sessions,
  waitFor,
  type Connected,
  type Workspace,
} from './helpers.js';

function texts(result: CallToolResult): string[] {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`));
}

describe('murmur mcp serve', () => {
  let ws: Workspace;
  let server: Connected;

  beforeAll(async () => {
    assertBuilt();
    ws = await makeWorkspace();
    server = await connect(ws);
  });

  afterAll(async () => {
    await server?.client.close();
    await removeWorkspaces();
  });

  it('lists run_agent and run_swarm with their input schemas', async () => {
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(['run_agent', 'run_swarm']);
    expect(byName.get('run_agent')!.inputSchema.required).toEqual(['task']);
    expect(Object.keys(byName.get('run_agent')!.inputSchema.properties ?? {})).toEqual(['task', 'role']);
    expect(byName.get('run_swarm')!.inputSchema.required).toEqual(['template', 'items']);
    expect(Object.keys(byName.get('run_swarm')!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['template', 'items', 'role', 'verify', 'isolation', 'max_concurrency']),
    );
    expect(byName.get('run_swarm')!.outputSchema).toBeDefined();
  });

  it('run_agent runs the main agent in the workspace and returns its answer with status, usage and agents', async () => {
    const progress: Progress[] = [];
    const result = (await server.client.callTool(
      { name: 'run_agent', arguments: { task: 'read notes.txt' } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(texts(result)[0]).toBe('Read notes.txt.');
    const json = result.structuredContent as {
      status: string;
      result: string;
      agents: { id: string; toolCalls: number }[];
      sessionId: string;
    };
    expect(json).toMatchObject({
      status: 'completed',
      result: 'Read notes.txt.',
      agents: [{ id: 'main', role: 'main', status: 'completed', toolCalls: 1 }],
    });
    expect(JSON.parse(texts(result)[1]!)).toEqual(json);
    // The read really happened: the file's text is in the agent's transcript of the session on disk.
    const { readFileSync } = await import('node:fs');
    const transcript = readFileSync(
      `${ws.dir}/.murmur/sessions/${json.sessionId}/agents/main/transcript.jsonl`,
      'utf8',
    );
    expect(transcript).toContain('secret-note-7f3a');
    // Progress: the agent started, called read, ended; each notification larger than the one before.
    expect(progress.map((p) => p.message)).toEqual([
      'agent main (main) started',
      'agent main: read',
      'agent main (main) ended completed',
    ]);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
  });

  it('run_agent takes a role, and names the known roles when the role is unknown', async () => {
    const explored = (await server.client.callTool({
      name: 'run_agent',
      arguments: { task: 'map the folder', role: 'explore' },
    })) as CallToolResult;
    expect(explored.isError).toBeFalsy();
    expect(texts(explored)[0]).toBe('explored: map the folder');
    expect(explored.structuredContent).toMatchObject({ agents: [{ role: 'explore' }] });

    const unknown = (await server.client.callTool({
      name: 'run_agent',
      arguments: { task: 'x', role: 'nobody' },
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)[0]).toMatch(/"nobody".*known: main, explore, worker \(coder\), verifier/);
  });

  it('run_swarm runs one worker per item and returns the report, its JSON, and items-done progress', async () => {
    const progress: Progress[] = [];
    const result = (await server.client.callTool(
      {
        name: 'run_swarm',
        arguments: { template: 'Summarise {{item}} in one line', items: ['a.txt', 'b.txt', 'c.txt'] },
      },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const report = texts(result)[0]!;
    expect(report.split('\n')[0]).toBe('<agent_swarm_result>');
    expect(report).toContain('<summary>completed: 3</summary>');
    const rows = report.split('\n').filter((l) => l.startsWith('<subagent '));
    expect(rows.map((r) => /item="([^"]+)"/.exec(r)![1])).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(rows[1]).toMatch(/outcome="completed".*>Summary of b\.txt<\/subagent>$/);

    const json = result.structuredContent as {
      status: string;
      summary: Record<string, number>;
      items: { item: string; outcome: string; text: string }[];
    };
    expect(json.status).toBe('completed');
    expect(json.summary).toEqual({ completed: 3 });
    expect(json.items.map((i) => [i.item, i.outcome, i.text])).toEqual([
      ['a.txt', 'completed', 'Summary of a.txt'],
      ['b.txt', 'completed', 'Summary of b.txt'],
      ['c.txt', 'completed', 'Summary of c.txt'],
    ]);
    expect(JSON.parse(texts(result)[1]!)).toEqual(json);

    // Progress counts items done out of 3, growing with every notification.
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    expect(progress.every((p) => p.total === 3 && p.progress <= 3)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ progress: 3, total: 3 });
    expect(progress.at(-1)!.message).toMatch(/^3\/3 items done/);
    expect(progress.some((p) => /agent \S+ \(worker\) started on b\.txt/.test(p.message ?? ''))).toBe(true);
  });

  it('run_swarm refuses a bad request before anything starts, with the reason', async () => {
    const noPlaceholder = (await server.client.callTool({
      name: 'run_swarm',
      arguments: { template: 'Summarise', items: ['a.txt', 'b.txt'] },
    })) as CallToolResult;
    expect(noPlaceholder.isError).toBe(true);
    expect(texts(noPlaceholder)[0]).toMatch(/^run_swarm: .*\{\{item\}\}/);

    const badRole = (await server.client.callTool({
      name: 'run_swarm',
      arguments: { template: 'Summarise {{item}}', items: ['a.txt', 'b.txt'], role: 'main' },
    })) as CallToolResult;
    expect(badRole.isError).toBe(true);
    expect(texts(badRole)[0]).toMatch(/main role cannot run as a swarm item/);

    const badIsolation = (await server.client.callTool({
      name: 'run_swarm',
      arguments: { template: 'Summarise {{item}}', items: ['a.txt', 'b.txt'], isolation: 'worktree' },
    })) as CallToolResult;
    expect(badIsolation.isError).toBe(true);
    expect(texts(badIsolation)[0]).toMatch(/isolation "worktree" needs a git repository/);
  });

  it('a cancelled request aborts its run, keeps the session, and the server stays healthy', async () => {
    const controller = new AbortController();
    const call = server.client.callTool(
      { name: 'run_agent', arguments: { task: 'slow: list the text files' } },
      undefined,
      {
        signal: controller.signal,
        // Cancel once the agent is inside its 20 s model call (after its first tool call).
        onprogress: (p) => {
          if (p.message === 'agent main: glob') setTimeout(() => controller.abort('enough'), 100);
        },
      },
    );
    await expect(call).rejects.toThrow();

    // The run was aborted, not left running: its session on disk says so, long before the 20 s turn would end.
    const saved = await waitFor('the cancelled session to be saved as aborted', () =>
      sessions(ws).find((s) => s.task === 'slow: list the text files' && s.status !== 'running'),
    );
    expect(saved.status).toBe('aborted');
    expect(saved.agents).toMatchObject([{ id: 'main', status: 'aborted' }]);
    await waitFor('the server log of the cancelled run', () =>
      /run_agent #\d+ ended aborted/.test(server.stderr()) ? true : undefined,
    );

    expect(isAlive(server.pid)).toBe(true);
    const again = (await server.client.callTool({
      name: 'run_agent',
      arguments: { task: 'read a.txt' },
    })) as CallToolResult;
    expect(texts(again)[0]).toBe('Read a.txt.');
  });

  it('runs several requests at once, each with its own session', async () => {
    const before = sessions(ws).length;
    const [one, two, swarm] = (await Promise.all([
      server.client.callTool({ name: 'run_agent', arguments: { task: 'read b.txt' } }),
      server.client.callTool({ name: 'run_agent', arguments: { task: 'read c.txt' } }),
      server.client.callTool({
        name: 'run_swarm',
        arguments: { template: 'Summarise {{item}}', items: ['a.txt', 'c.txt'] },
      }),
    ])) as CallToolResult[];
    expect(texts(one!)[0]).toBe('Read b.txt.');
    expect(texts(two!)[0]).toBe('Read c.txt.');
    expect(swarm!.structuredContent).toMatchObject({ status: 'completed', summary: { completed: 2 } });
    const ids = [one, two, swarm].map((r) => (r!.structuredContent as { sessionId: string }).sessionId);
    expect(new Set(ids).size).toBe(3);
    expect(sessions(ws).length).toBe(before + 3);
  });
});
