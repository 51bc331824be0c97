// An example file of test/api/examples/ as the README shows it: without its first line (a comment naming the
// example), with the package's import paths in place of the source entries.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const EXAMPLES = path.join(import.meta.dirname, 'examples');

export function asDocumented(file: string): string {
  return readFileSync(path.join(EXAMPLES, file), 'utf8')
    .split('\n')
    .slice(1)
    .join('\n')
    .replace("'../../../api/index.js'", "'murmur-agents'")
    .replace("'../../../api/testing.js'", "'murmur-agents/testing'")
    .trim();
}
