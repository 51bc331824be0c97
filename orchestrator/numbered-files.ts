// A session's numbered files (`journal-<n>.jsonl`, `transcripts-<n>.jsonl`): one new number per process or
// generation, read back in order.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The path of `<stem>-<n>.jsonl` in `dir`. */
export function numberedFile(dir: string, stem: string, n: number): string {
  return join(dir, `${stem}-${n}.jsonl`);
}

/** The numbers of the `<stem>-<n>.jsonl` files in `dir`, smallest first ([] when the folder cannot be read). */
export function fileNumbers(dir: string, stem: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const prefix = `${stem}-`;
  return names
    .filter((name) => name.startsWith(prefix) && name.endsWith('.jsonl'))
    .map((name) => name.slice(prefix.length, -'.jsonl'.length))
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
}
