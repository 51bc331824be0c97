// The README's code-agents example, run as written on the scripted model: the finder alone with its typed answer,
// then called by name from the main agent; the hook sees every call and refuses the main agent's read of .env; the
// run's toolAccess keeps bash and the web from the main agent.
import { writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../api/testing.js';
import { whereRead } from './examples/code-agents.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-code-agents-')));
  writeFileSync(path.join(dir, 'server.js'), 'const port = process.env.PORT ?? 8080;\n');
  writeFileSync(path.join(dir, '.env'), 'PORT=9000\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('README: agents in code', () => {
  it('runs the finder alone and as a subagent; the hook refuses .env; toolAccess removes bash and the web', async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'finder' },
          turns: [
            { toolCalls: [{ name: 'grep', arguments: { pattern: 'PORT' } }] },
            { toolCalls: [{ name: 'final_answer', arguments: { file: 'server.js', line: 1 } }] },
          ],
        },
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'Where is PORT read?', description: 'find PORT', subagent_type: 'finder' },
                },
              ],
            },
            { toolCalls: [{ name: 'read', arguments: { path: '.env' } }] },
            { text: 'PORT is read in server.js:1 and defaults to 8080.' },
          ],
        },
      ],
    });
    const answer = await whereRead(dir, 'PORT', model);
    expect(answer.location).toEqual({ file: 'server.js', line: 1 });
    expect(answer.summary).toBe('PORT is read in server.js:1 and defaults to 8080.');
    expect(answer.calls).toEqual([
      'finder: grep',
      'finder: final_answer',
      'main: agent',
      'finder: grep',
      'finder: final_answer',
      'main: read',
    ]);
    const main = model.calls.filter((call) => call.agent.role === 'main');
    const offered = main[0]!.tools.map((tool) => tool.name);
    expect(offered).toContain('agent');
    expect(offered).not.toContain('bash');
    expect(offered).not.toContain('fetch_url');
    expect(JSON.stringify(main.at(-1)!.messages.at(-1))).toContain('.env files hold secrets; they are never read');
    model.assertComplete();
  });
});
