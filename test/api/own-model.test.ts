// The README's "Your own model" example, run as written against a local endpoint: the provider's tool calls reach
// the tools, their results come back in the next request, and an HTTP failure ends the run as a value.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askHouseModel } from './examples/own-model.js';
import { startHouseEndpoint, type HouseEndpoint } from './house-endpoint.js';

let dir: string;
let endpoint: HouseEndpoint | undefined;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-own-model-')));
  mkdirSync(path.join(dir, 'notes'));
  for (const name of ['plan.md', 'retro.md']) writeFileSync(path.join(dir, 'notes', name), `# ${name}\n`);
});
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('README "Your own model"', () => {
  it('runs the main agent on the provider: a tool call, its result in the next request, then the answer', async () => {
    endpoint = await startHouseEndpoint();
    expect(await askHouseModel(dir, endpoint.url, 'How many notes are there?')).toBe('2 notes.');
    const [first, second] = endpoint.requests;
    expect(endpoint.requests).toHaveLength(2);
    expect(first!.messages).toEqual([{ role: 'user', content: 'How many notes are there?' }]);
    expect(first!.tools.map((tool) => tool.name)).toContain('glob');
    expect(first!.system.length).toBeGreaterThan(0);
    expect(second!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('a refused request (HTTP 401) fails the run with the reason, not an exception', async () => {
    endpoint = await startHouseEndpoint(true);
    const answer = await askHouseModel(dir, endpoint.url, 'How many notes are there?');
    expect(answer).toMatch(/^failed: .*answered HTTP 401/);
    // auth is never retried.
    expect(endpoint.requests).toHaveLength(1);
  });
});
