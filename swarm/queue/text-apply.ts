// A batch of diffs applied in the coordinator's working tree without a git process, when every file in it is a
// plain change whose result is known exactly: the diff names full blob ids (text-patch.ts writes them), the file
// here is that base blob byte for byte, no attributes file is on its way, and the patched text hashes to the
// blob the item made. Then the bytes written are the item's, as `git apply` would write them; anything else
// (another item changed the file first, a new or removed file, a mode, a binary patch) is left to git.
import { existsSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import writeFileAtomic from 'write-file-atomic';
import { plainFile } from '../touched-merge.js';
import { blobId, plainPath, plainText } from '../text-patch.js';

/** One file's part of a diff: a modification from blob `before` to blob `after`. */
interface FileChange {
  path: string;
  before: string;
  after: string;
  hunks: StructuredPatch;
}

const SECTION =
  /^diff --git a\/(\S+) b\/\1\nindex ([0-9a-f]{40}|[0-9a-f]{64})\.\.([0-9a-f]{40}|[0-9a-f]{64})(?: 100644| 100755)?\n--- a\/\1\n\+\+\+ b\/\1\n@@ /;

/**
 * Applies `diffs` in order to the working tree at `root` (call it inside the repository's queue): true when
 * every file was written here, false, with nothing written, when git must apply them.
 */
export function applyTextDiffs(root: string, diffs: readonly string[]): boolean {
  const results = new Map<string, { bytes: Buffer; id: string }>();
  for (const diff of diffs) {
    const changes = fileChanges(diff);
    if (!changes) return false;
    for (const change of changes) {
      const current = results.get(change.path) ?? readHere(root, change.path, change.before.length as 40 | 64);
      if (!current || current.id !== change.before) return false;
      const text = plainText(current.bytes);
      const patched = text === undefined ? false : applyPatch(text, change.hunks);
      if (patched === false) return false;
      const bytes = Buffer.from(patched);
      const id = blobId(bytes, change.after.length as 40 | 64);
      if (id !== change.after) return false;
      results.set(change.path, { bytes, id });
    }
  }
  // As git apply writes: atomically, keeping the file's mode, without waiting for the disk on every file.
  for (const [path, { bytes }] of results) writeFileAtomic.sync(join(root, path), bytes, { fsync: false });
  return true;
}

/** A diff's files when each is a plain modification with full blob ids; undefined otherwise. */
function fileChanges(diff: string): FileChange[] | undefined {
  if (diff.trim() === '') return [];
  const sections = diff.split(/^(?=diff --git )/m);
  const changes: FileChange[] = [];
  for (const section of sections) {
    const match = SECTION.exec(section);
    if (!match || !plainPath(match[1]!)) return undefined;
    let parsed: StructuredPatch[];
    try {
      parsed = parsePatch(section);
    } catch {
      return undefined;
    }
    if (parsed.length !== 1 || parsed[0]!.hunks.length === 0) return undefined;
    changes.push({ path: match[1]!, before: match[2]!, after: match[3]!, hunks: parsed[0]! });
  }
  return changes;
}

/**
 * The plain file at `path` here with its blob id; undefined when it is not one, an attributes file may apply, or
 * a folder on its way is a link (git apply does not write beyond one, and neither is it written here).
 */
function readHere(root: string, path: string, idLength: 40 | 64): { bytes: Buffer; id: string } | undefined {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    if (existsSync(join(root, folder, '.gitattributes'))) return undefined;
    if (folder === '.') break;
    if (!isFolder(join(root, folder))) return undefined;
  }
  const here = plainFile(join(root, path));
  if (!here?.bytes) return undefined;
  return { bytes: here.bytes, id: blobId(here.bytes, idLength) };
}

/** A real folder: not a link to one. */
function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
