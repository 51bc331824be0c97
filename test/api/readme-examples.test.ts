// The README's "Use it from code" blocks are the example files that examples.test.ts runs, word for word (only the
// import path differs: 'murmur-agents' for a user, the source entry here), so the documented examples cannot drift.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const section = readme.slice(
  readme.indexOf('## Use it from code'),
  readme.indexOf('\n## ', readme.indexOf('## Use it from code') + 5),
);
const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

function asDocumented(file: string): string {
  const text = readFileSync(path.join(root, 'test/api/examples', file), 'utf8');
  // The file's first line is a comment naming the example; the README block starts at the import.
  return text.split('\n').slice(1).join('\n').replace("'../../../api/index.js'", "'murmur-agents'").trim();
}

describe('README "Use it from code"', () => {
  it('shows exactly the three tested examples, in order', () => {
    expect(blocks).toEqual([
      asDocumented('refactor-batch.ts'),
      asDocumented('research-fanout.ts'),
      asDocumented('custom-tool.ts'),
    ]);
  });
});
