// Turns per-file hits into the text the model reads: sorted by path (so paging is stable), long lines cut,
// paged with offset and head_limit.
import type { GrepFileHits, GrepOutputMode, GrepQuery } from './grep-query.js';

export const GREP_DEFAULT_HEAD_LIMIT = 250;
/** Content lines longer than this are cut (minified files would otherwise flood the result). */
export const GREP_MAX_LINE_CHARS = 1000;

export interface GrepPage {
  offset: number;
  /** 0 = no limit. */
  headLimit: number;
}

export interface FormattedGrep {
  text: string;
  total: number;
  shown: number;
}

function cutLine(text: string): string {
  if (text.length <= GREP_MAX_LINE_CHARS) return text;
  return `${text.slice(0, GREP_MAX_LINE_CHARS)} […line cut: ${text.length - GREP_MAX_LINE_CHARS} more characters]`;
}

export function sortHits(files: GrepFileHits[]): GrepFileHits[] {
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** One entry per result line (files, counts, or content lines and `--` separators). */
export function grepEntries(
  files: readonly GrepFileHits[],
  query: Pick<GrepQuery, 'mode' | 'before' | 'after'>,
  show: (file: string) => string,
  lineNumbers: boolean,
): string[] {
  const entries: string[] = [];
  if (query.mode === 'files') {
    for (const file of files) entries.push(show(file.path));
    return entries;
  }
  if (query.mode === 'count') {
    for (const file of files) entries.push(`${show(file.path)}:${file.count ?? 0}`);
    return entries;
  }
  const withContext = query.before > 0 || query.after > 0;
  for (const file of files) {
    const shown = show(file.path);
    for (const group of file.groups ?? []) {
      if (withContext && entries.length > 0) entries.push('--');
      for (const line of group) {
        const mark = line.match ? ':' : '-';
        entries.push(
          lineNumbers
            ? `${shown}${mark}${line.line}${mark}${cutLine(line.text)}`
            : `${shown}${mark}${cutLine(line.text)}`,
        );
      }
    }
  }
  return entries;
}

export function pageEntries(
  entries: readonly string[],
  page: GrepPage,
): { lines: readonly string[]; nextOffset?: number } {
  const end = page.headLimit === 0 ? entries.length : Math.min(entries.length, page.offset + page.headLimit);
  const lines = entries.slice(page.offset, end);
  return end < entries.length ? { lines, nextOffset: end } : { lines };
}

function summary(files: readonly GrepFileHits[], mode: GrepOutputMode): string {
  const fileCount = `${files.length} ${files.length === 1 ? 'file' : 'files'}`;
  if (mode === 'files') return `${fileCount} match.`;
  if (mode === 'count') {
    const lines = files.reduce((sum, file) => sum + (file.count ?? 0), 0);
    return `${lines} matching ${lines === 1 ? 'line' : 'lines'} in ${fileCount}.`;
  }
  let lines = 0;
  for (const file of files) for (const group of file.groups ?? []) for (const line of group) if (line.match) lines++;
  return `${lines} matching ${lines === 1 ? 'line' : 'lines'} in ${fileCount}.`;
}

export function formatGrep(
  files: GrepFileHits[],
  query: Pick<GrepQuery, 'mode' | 'before' | 'after'>,
  show: (file: string) => string,
  lineNumbers: boolean,
  page: GrepPage,
): FormattedGrep {
  const entries = grepEntries(sortHits(files), query, show, lineNumbers);
  if (page.offset > 0 && page.offset >= entries.length) {
    return {
      text: `offset ${page.offset} is past the end of the results (${entries.length} result lines). ${summary(files, query.mode)}`,
      total: entries.length,
      shown: 0,
    };
  }
  const { lines, nextOffset } = pageEntries(entries, page);
  let text = `${summary(files, query.mode)}\n${lines.join('\n')}`;
  if (nextOffset !== undefined) {
    text += `\n\n[Showing result lines ${page.offset + 1} to ${nextOffset} of ${entries.length}. Continue with offset=${nextOffset}, or narrow the search with path, glob or type.]`;
  } else if (page.offset > 0) {
    text += `\n\n[Showing result lines ${page.offset + 1} to ${entries.length} of ${entries.length}.]`;
  }
  return { text, total: entries.length, shown: lines.length };
}
