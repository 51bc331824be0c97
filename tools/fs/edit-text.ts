// The text side of edit, free of I/O: find old_string (exactly once unless replace_all), keep CRLF line
// endings, explain a miss, and describe the change as a small diff.
import { lineOf, lineStarts } from './line-index.js';

export type EditOutcome = { ok: true; text: string; replacements: number; diff: string } | { ok: false; error: string };

const CONTEXT_LINES = 2;
const MAX_HUNKS = 3;
const MAX_HUNK_SIDE_LINES = 20;

function countOccurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    found.push(at);
    at = haystack.indexOf(needle, at + needle.length);
  }
  return found;
}

function dominantEol(text: string): '\r\n' | '\n' {
  let crlf = 0;
  let lf = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    if (at > 0 && text.charCodeAt(at - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

function lineText(text: string, starts: readonly number[], index: number): string {
  const start = starts[index]!;
  const end = index + 1 < starts.length ? starts[index + 1]! - 1 : text.length;
  const line = text.slice(start, end);
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function newlineCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

function sideLines(prefix: string, text: string, starts: readonly number[], first: number, count: number): string[] {
  const out: string[] = [];
  const shown = Math.min(count, MAX_HUNK_SIDE_LINES);
  for (let i = 0; i < shown; i++)
    out.push(`${prefix}${String(first + i + 1).padStart(5)}| ${lineText(text, starts, first + i)}`);
  if (count > shown) out.push(`${prefix}      … ${count - shown} more lines`);
  return out;
}

function buildDiff(
  before: string,
  after: string,
  matches: readonly number[],
  oldLength: number,
  newString: string,
): string {
  const oldStarts = lineStarts(before);
  const newStarts = lineStarts(after);
  const delta = newString.length - oldLength;
  const hunks: string[] = [];
  for (let i = 0; i < Math.min(matches.length, MAX_HUNKS); i++) {
    const at = matches[i]!;
    const firstOld = lineOf(oldStarts, at);
    const lastOld = lineOf(oldStarts, Math.max(at, at + oldLength - 1));
    const firstNew = lineOf(newStarts, at + delta * i);
    const oldCount = lastOld - firstOld + 1;
    const newCount = Math.max(0, oldCount + newlineCount(newString) - newlineCount(before.slice(at, at + oldLength)));
    const lines: string[] = [];
    const contextStart = Math.max(0, firstOld - CONTEXT_LINES);
    for (let line = contextStart; line < firstOld; line++)
      lines.push(`  ${String(line + 1).padStart(5)}| ${lineText(before, oldStarts, line)}`);
    lines.push(...sideLines('- ', before, oldStarts, firstOld, oldCount));
    lines.push(...sideLines('+ ', after, newStarts, firstNew, Math.min(newCount, newStarts.length - firstNew)));
    const afterStart = firstNew + newCount;
    for (let line = afterStart; line < Math.min(newStarts.length, afterStart + CONTEXT_LINES); line++) {
      lines.push(`  ${String(line + 1).padStart(5)}| ${lineText(after, newStarts, line)}`);
    }
    hunks.push(lines.join('\n'));
  }
  if (matches.length > MAX_HUNKS) hunks.push(`… and ${matches.length - MAX_HUNKS} more replacements`);
  return hunks.join('\n  ...\n');
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Edit distance, bounded: only used on short single lines. */
function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

const MAX_LINES_TO_COMPARE = 20_000;
const MAX_LINE_CHARS = 300;

function closestLine(text: string, oldString: string): { line: number; text: string } | undefined {
  const probe = oldString
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 0);
  if (!probe) return undefined;
  const target = probe.slice(0, MAX_LINE_CHARS);
  const lines = text.split('\n');
  let best: { line: number; text: string; score: number } | undefined;
  for (let i = 0; i < Math.min(lines.length, MAX_LINES_TO_COMPARE); i++) {
    const candidate = lines[i]!.replace(/\r$/, '');
    const trimmed = candidate.trim().slice(0, MAX_LINE_CHARS);
    if (trimmed.length === 0) continue;
    const longest = Math.max(trimmed.length, target.length);
    // Lines whose lengths differ this much cannot reach the similarity threshold.
    if (Math.abs(trimmed.length - target.length) > longest * 0.4) continue;
    const score = 1 - levenshtein(trimmed, target) / longest;
    if (!best || score > best.score) best = { line: i + 1, text: candidate, score };
    if (score === 1) break;
  }
  return best && best.score >= 0.6 ? { line: best.line, text: best.text } : undefined;
}

function missExplanation(text: string, oldString: string, display: string): string {
  const parts = [`old_string was not found in ${display}.`];
  if (/^\s*\d+\t/m.test(oldString) && oldString.split('\n').every((line) => line === '' || /^\s*\d+\t/.test(line))) {
    parts.push('It seems to include the line-number prefixes of read output; send only the text after the tab.');
  } else if (collapseWhitespace(text).includes(collapseWhitespace(oldString))) {
    parts.push('It matches only when whitespace is ignored: copy the exact indentation and line breaks from the file.');
  }
  const closest = closestLine(text, oldString);
  if (closest) parts.push(`The closest line is ${closest.line}: ${JSON.stringify(closest.text)}.`);
  parts.push('Read the file again to copy the exact text.');
  return parts.join(' ');
}

/** Applies one edit to the text of a file (without its BOM). */
export function applyEdit(
  text: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
  display: string,
): EditOutcome {
  if (oldString === '')
    return { ok: false, error: 'old_string is empty. To create a file or replace all of it, use write.' };
  if (oldString === newString)
    return { ok: false, error: 'old_string and new_string are the same; there is nothing to change.' };
  const eol = dominantEol(text);
  let find = oldString;
  let replace = newString;
  let matches = countOccurrences(text, find);
  if (eol === '\r\n') {
    // The model writes \n; the file says \r\n. Match and write in the file's own line endings.
    if (matches.length === 0 && find.includes('\n')) {
      find = toCrlf(oldString);
      matches = countOccurrences(text, find);
    }
    replace = toCrlf(newString);
  }
  if (matches.length === 0) return { ok: false, error: missExplanation(text, oldString, display) };
  if (matches.length > 1 && !replaceAll) {
    return {
      ok: false,
      error:
        `old_string matches ${matches.length} places in ${display}. Add surrounding lines to old_string so it matches exactly one, ` +
        `or set replace_all: true to replace all ${matches.length}.`,
    };
  }
  const used = replaceAll ? matches : matches.slice(0, 1);
  let result = '';
  let from = 0;
  for (const at of used) {
    result += text.slice(from, at) + replace;
    from = at + find.length;
  }
  result += text.slice(from);
  return {
    ok: true,
    text: result,
    replacements: used.length,
    diff: buildDiff(text, result, used, find.length, replace),
  };
}
