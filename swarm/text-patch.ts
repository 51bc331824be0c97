// A git patch of changed text files written in-process: what `git diff --binary <base> -- <files>` gives for plain
// text whose bytes git would not convert, without a git process per item. Anything else (bytes git may convert or
// quote, binary content, a rewrite too large to diff cheaply) gets no patch here, and git's own diff decides.
import { createHash } from 'node:crypto';
import { formatPatch, structuredPatch } from 'diff';

/** One changed file: its path (`/`-separated, from the repository's top) and its bytes at the base and now. */
export interface TextChange {
  path: string;
  base: Buffer;
  now: Buffer;
}

/** Paths git writes as they are (no C-quoting, no space to split on): others go to git. */
const PLAIN_PATH = /^[A-Za-z0-9._+@,=/-]+$/;
/** Past this many changed lines a file is git's to diff (its diff is quicker on a rewrite). */
const MAX_EDIT_LENGTH = 200;
/** Lines of context around each change, as git writes them. */
const CONTEXT = 3;
// ignoreBOM keeps a byte-order mark in the text: it is part of the first line git compares.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The patch of `changes` (unchanged files leave no trace), with full object ids on each `index` line (`oidLength`:
 * 40 for SHA-1 repositories, 64 for SHA-256) so that `git apply -3` can use it; undefined when one file is not
 * plain text: a NUL or a carriage return (git's end-of-line conversion would change it), `$Id` (the ident
 * attribute), bytes that are not UTF-8, or a path git would quote.
 */
export function textPatch(changes: readonly TextChange[], oidLength: 40 | 64): string | undefined {
  let patch = '';
  for (const change of changes) {
    if (change.base.equals(change.now)) continue;
    const one = filePatch(change, oidLength);
    if (one === undefined) return undefined;
    patch += one;
  }
  return patch;
}

function filePatch({ path, base, now }: TextChange, oidLength: 40 | 64): string | undefined {
  if (!plainPath(path)) return undefined;
  const before = plainText(base);
  const after = plainText(now);
  if (before === undefined || after === undefined) return undefined;
  // The lines both share at the ends are left out of the diff (it is quadratic in what it is given), but for
  // the context lines the hunks keep.
  const { skipped, cut } = commonEnds(before, after, CONTEXT);
  const hunks = structuredPatch(
    `a/${path}`,
    `b/${path}`,
    before.slice(skipped.chars, before.length - cut),
    after.slice(skipped.chars, after.length - cut),
    undefined,
    undefined,
    { context: CONTEXT, maxEditLength: MAX_EDIT_LENGTH },
  );
  if (!hunks) return undefined;
  for (const hunk of hunks.hunks) {
    hunk.oldStart += skipped.lines;
    hunk.newStart += skipped.lines;
  }
  const index = `index ${blobId(base, oidLength)}..${blobId(now, oidLength)}`;
  return `diff --git a/${path} b/${path}\n${index}\n${formatPatch(hunks, { includeIndex: false, includeUnderline: false, includeFileHeaders: true })}`;
}

/**
 * Whole lines the two texts share at their start (`skipped`: characters and lines) and end (`cut`: characters),
 * less `context` lines each side.
 */
function commonEnds(
  before: string,
  after: string,
  context: number,
): { skipped: { chars: number; lines: number }; cut: number } {
  const shorter = Math.min(before.length, after.length);
  let head = 0;
  while (head < shorter && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  let tail = 0;
  while (
    tail < shorter - head &&
    before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)
  )
    tail++;
  // Back to the start of the line of the first difference, then `context` lines more.
  let start = head === 0 ? 0 : before.lastIndexOf('\n', head - 1) + 1;
  for (let i = 0; i < context && start > 0; i++) start = before.lastIndexOf('\n', start - 2) + 1;
  // On to the start of the line after the last difference, then `context` lines more.
  let end = before.indexOf('\n', before.length - tail);
  end = end < 0 ? before.length : end + 1;
  for (let i = 0; i < context && end < before.length; i++) {
    const next = before.indexOf('\n', end);
    end = next < 0 ? before.length : next + 1;
  }
  let lines = 0;
  for (let at = before.indexOf('\n'); at >= 0 && at < start; at = before.indexOf('\n', at + 1)) lines++;
  return { skipped: { chars: start, lines }, cut: before.length - end };
}

/** Whether git writes `path` as it is in a patch, and it stays inside the repository. */
export function plainPath(path: string): boolean {
  return PLAIN_PATH.test(path) && !path.split('/').some((part) => part === '' || part === '.' || part === '..');
}

/** The text of `bytes`, or undefined when git could see it as binary or convert it on the way in. */
export function plainText(bytes: Buffer): string | undefined {
  if (bytes.includes(0) || bytes.includes(13)) return undefined;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
  return text.includes('$Id') ? undefined : text;
}

/** The object id git gives a blob of these bytes. */
export function blobId(bytes: Buffer, oidLength: 40 | 64): string {
  return createHash(oidLength === 64 ? 'sha256' : 'sha1')
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest('hex');
}
