// The README's "Use it from code" blocks are the example files that examples.test.ts, testing.test.ts and
// own-model.test.ts run, word for word (only the import paths differ: 'murmur-agents' and 'murmur-agents/testing'
// for a user, the source entries here), so the documented examples cannot drift.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { asDocumented } from './documented.js';

const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const section = readme.slice(
  readme.indexOf('## Use it from code'),
  readme.indexOf('\n## ', readme.indexOf('## Use it from code') + 5),
);
const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

describe('README "Use it from code"', () => {
  it('shows exactly the tested examples, in order', () => {
    expect(blocks).toEqual([
      asDocumented('refactor-batch.ts'),
      asDocumented('research-fanout.ts'),
      asDocumented('typed-output.ts'),
      asDocumented('typed-output-zod.ts'),
      asDocumented('custom-tool.ts'),
      asDocumented('code-agents.ts'),
      asDocumented('run-handle.ts'),
      asDocumented('waiting.ts'),
      asDocumented('scripted-test.ts'),
      asDocumented('own-model.ts'),
      asDocumented('tracing.ts'),
    ]);
  });
});
