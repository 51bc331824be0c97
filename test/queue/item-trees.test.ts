// A queue worker's item trees: an item's diff is written in-process when its files are plain text in a plain
// checkout, by git otherwise (attributes, an executable bit that changed), and either one applies at the base.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ItemTrees } from '../../swarm/queue/item-trees.js';
import { commitAll, git, gitRepo } from '../swarm/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A repository of `files`, one item tree at its commit, and what the item's diff is once `change` ran there. */
async function itemDiff(
  files: Record<string, string>,
  change: (tree: string) => string[],
): Promise<{ repo: string; diff: string; tree: string; trees: ItemTrees; base: string }> {
  const repo = mkdtempSync(path.join(tmpdir(), 'murmur-item-trees-'));
  dirs.push(repo);
  gitRepo(repo, files);
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  const trees = new ItemTrees(repo);
  const taken = await trees.take(base);
  if (!taken.ok) throw new Error(taken.error);
  const touched = change(taken.path).map((rel) => path.join(taken.path, rel));
  return { repo, diff: await trees.diff(taken.path, base, touched), tree: taken.path, trees, base };
}

/** Applies `diff` in `repo` with git and returns the file's text. */
function applied(repo: string, diff: string, file: string): string {
  writeFileSync(path.join(repo, '..', `${path.basename(repo)}.patch`), diff);
  git(repo, 'apply', `../${path.basename(repo)}.patch`);
  return readFileSync(path.join(repo, file), 'utf8');
}

describe('a queue worker’s item diff', () => {
  it('is written in-process for plain text in a plain checkout, names full blob ids, and applies', async () => {
    const { repo, diff, tree, trees, base } = await itemDiff(
      { 'src/a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' },
      (t) => {
        writeFileSync(path.join(t, 'src/a.txt'), 'one\n2\nthree\n');
        return ['src/a.txt'];
      },
    );
    expect(diff).toMatch(/^diff --git a\/src\/a.txt b\/src\/a.txt\nindex [0-9a-f]{40}\.\.[0-9a-f]{40}\n/);
    expect(applied(repo, diff, 'src/a.txt')).toBe('one\n2\nthree\n');
    // The tree is put back to the base for the next item.
    await trees.give(tree, base);
    const again = await trees.take(base);
    expect(again.ok && readFileSync(path.join(again.path, 'src/a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    await trees.close();
  });

  it('is git’s when the base has an attributes file, and still applies', async () => {
    const { repo, diff, trees } = await itemDiff({ '.gitattributes': '*.txt text\n', 'a.txt': 'x\n' }, (t) => {
      writeFileSync(path.join(t, 'a.txt'), 'y\n');
      return ['a.txt'];
    });
    // git abbreviates the blob ids and adds the mode.
    expect(diff).toMatch(/^diff --git a\/a.txt b\/a.txt\nindex [0-9a-f]{7,}\.\.[0-9a-f]{7,} 100644\n/);
    expect(applied(repo, diff, 'a.txt')).toBe('y\n');
    await trees.close();
  });

  it('is git’s when an executable bit changed, and says so', async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'murmur-item-trees-'));
    dirs.push(repo);
    mkdirSync(repo, { recursive: true });
    writeFileSync(path.join(repo, 'run.sh'), 'echo hi\n');
    chmodSync(path.join(repo, 'run.sh'), 0o755);
    git(repo, 'init', '-q', '-b', 'main');
    commitAll(repo, 'initial');
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    const trees = new ItemTrees(repo);
    const taken = await trees.take(base);
    if (!taken.ok) throw new Error(taken.error);
    const file = path.join(taken.path, 'run.sh');
    writeFileSync(file, 'echo bye\n');
    chmodSync(file, 0o644);
    const diff = await trees.diff(taken.path, base, [file]);
    expect(diff).toContain('old mode 100755\nnew mode 100644\n');
    await trees.close();
  });
});
