// `murmur run --agent NAME`: the task runs as the agent defined in .murmur/agents/NAME.md, with its prompt,
// its tools and its limits (in process for the prompt, through the built CLI for the rest).
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentProfile } from '../../roles/profile.js';
import type { MurmurEvent, ToolEndEvent } from '../../orchestrator/events.js';
import type { ModelRequest } from '../../orchestrator/models/provider.js';
import {
  readJsonLines,
  removeDir,
  requireBuiltCli,
  runCli,
  scriptedEngine,
  tempDir,
  writeTree,
  type Script,
} from '../engine/helpers.js';

const READER = [
  '---',
  'name: reader',
  'description: Reads files and reports',
  'tools: Read, Glob',
  'maxTurns: 2',
  '---',
  'You read files and report what they say.',
  '',
].join('\n');

const script: Script = {
  agents: [
    {
      match: { role: 'reader', prompt: 'Read (\\S+)' },
      turns: [
        {
          toolCalls: [
            { name: 'read', arguments: { path: '$1' } },
            { name: 'write', arguments: { path: 'out.txt', content: 'x' } },
            { name: 'bash', arguments: { command: 'touch started.txt' } },
          ],
        },
        { toolCalls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] },
        { text: 'never: maxTurns is 2' },
      ],
    },
  ],
};

let cwd: string;
beforeAll(() => requireBuiltCli());
beforeEach(async () => {
  cwd = await tempDir('murmur-run-agent-');
  writeTree(cwd, { '.murmur/agents/reader.md': READER, 'notes.txt': 'hello\n' });
});
afterEach(async () => {
  await removeDir(cwd);
});

describe('running as a defined agent', () => {
  it('uses its prompt, its tools and its limits (in process)', async () => {
    const { engine, model } = scriptedEngine(cwd, script);
    const seen: ModelRequest[] = [];
    const complete = model.complete.bind(model);
    model.complete = (request, signal) => {
      seen.push(request);
      return complete(request, signal);
    };
    const profile = engine.profile('reader') as AgentProfile;
    const outcome = await engine.runTask('Read notes.txt', profile);
    expect(outcome).toMatchObject({ status: 'failed', reason: 'reached maxTurns (2) before finishing' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.agent).toEqual({ id: 'main', role: 'reader', attempt: 1 });
    expect(seen[0]!.system.startsWith('You read files and report what they say.')).toBe(true);
    expect(seen[0]!.tools.map((t) => t.name)).toEqual(['read', 'glob']);
  });

  it('murmur run --agent NAME runs the task as that agent', async () => {
    writeFileSync(path.join(cwd, 'script.json'), JSON.stringify(script));
    const result = await runCli(
      [
        'run',
        '--agent',
        'reader',
        '--model',
        'scripted:script.json',
        '--json',
        '--events',
        'events.jsonl',
        'Read notes.txt',
      ],
      { cwd },
    );
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as {
      status: string;
      reason: string;
      agents: { id: string; role: string; turns: number }[];
    };
    expect(json).toMatchObject({ status: 'failed', reason: 'reached maxTurns (2) before finishing' });
    expect(json.agents).toMatchObject([{ id: 'main', role: 'reader', turns: 2 }]);
    const ends = readJsonLines<MurmurEvent>(path.join(cwd, 'events.jsonl')).filter(
      (e): e is ToolEndEvent => e.type === 'tool.end',
    );
    expect(ends.map((e) => [e.tool, e.isError, e.error]).sort()).toEqual([
      ['bash', true, 'Tool "bash" is not available to the reader agent. Available tools: read, glob.'],
      ['glob', false, undefined],
      ['read', false, undefined],
      ['write', true, 'Tool "write" is not available to the reader agent. Available tools: read, glob.'],
    ]);
    expect(existsSync(path.join(cwd, 'out.txt'))).toBe(false);
    expect(existsSync(path.join(cwd, 'started.txt'))).toBe(false);
  });

  it('murmur run --agent with an unknown name is a usage error listing the known ones', async () => {
    writeFileSync(path.join(cwd, 'script.json'), JSON.stringify(script));
    const result = await runCli(['run', '--agent', 'writer', '--model', 'scripted:script.json', 'go'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'murmur run: --agent "writer": unknown agent or role "writer"; known: main, explore, worker (coder), verifier, reader.\n',
    );
    expect(existsSync(path.join(cwd, '.murmur', 'sessions'))).toBe(false);
  });
});
