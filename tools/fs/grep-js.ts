// The JavaScript fallback of grep, for machines without ripgrep: the same file selection (ignore files,
// sensitive files, type, glob) and the same hits, only slower.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  fileHasType,
  FILE_TYPES,
  type GrepFileHits,
  type GrepLine,
  type GrepOutcome,
  type GrepQuery,
} from './grep-query.js';
import { walkFiles } from './ignore-walk.js';
import { lineOf, lineStarts } from './line-index.js';

function compile(query: GrepQuery): RegExp | string {
  const flags = (query.ignoreCase ? 'i' : '') + (query.multiline ? 'gms' : '');
  try {
    return new RegExp(query.pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(query.pattern, flags);
    } catch (error) {
      return `pattern ${JSON.stringify(query.pattern)} is not a valid regular expression: ${(error as Error).message}`;
    }
  }
}

/** tinyglobby patterns (relative to the searched folder) for a ripgrep-style glob; undefined = matches nothing here. */
function globPatterns(glob: string | undefined, target: string): string[] | undefined {
  if (!glob) return ['**/*'];
  const negated = glob.startsWith('!');
  let body = negated ? glob.slice(1) : glob;
  if (!body.includes('/')) body = `**/${body}`;
  else {
    body = body.replace(/^\/+/, '');
    // A glob with a slash is relative to the base, as ripgrep matches it relative to where it runs.
    if (target !== '' && !body.startsWith('**/')) {
      if (!body.startsWith(`${target}/`)) return negated ? ['**/*'] : undefined;
      body = body.slice(target.length + 1);
    }
  }
  return negated ? ['**/*', `!${body}`] : [body];
}

async function candidateFiles(query: GrepQuery, signal?: AbortSignal): Promise<string[] | string> {
  if (query.type && !FILE_TYPES[query.type]) {
    return `unknown file type ${JSON.stringify(query.type)}; known types: ${Object.keys(FILE_TYPES).join(', ')}`;
  }
  if (query.targetIsFile) return [query.target];
  const patterns = globPatterns(query.glob, query.target);
  if (!patterns) return [];
  const searchRoot = query.target === '' ? query.base : path.join(query.base, query.target);
  const walkOptions = {
    base: query.base,
    searchRoot,
    patterns,
    includeIgnored: query.includeIgnored,
    ...(query.hidden ? { hidden: query.hidden } : {}),
    ...(signal ? { signal } : {}),
  };
  let found: string[];
  try {
    // Folders outside the searched one are never listed: a glob reaching there matches nothing, as with ripgrep.
    found = (await walkFiles(walkOptions)).files;
  } catch (error) {
    return `grep failed while listing files: ${(error as Error).message}`;
  }
  const prefix = query.target === '' ? '' : `${query.target}/`;
  const files = found.map((file) => prefix + file);
  return query.type ? files.filter((file) => fileHasType(path.posix.basename(file), query.type!)) : files;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function matchingLines(query: GrepQuery, regex: RegExp, text: string, lines: readonly string[]): number[] {
  if (!query.multiline) {
    const found: number[] = [];
    for (let i = 0; i < lines.length; i++) if (regex.test(lines[i]!)) found.push(i);
    return found;
  }
  // Multiline: every line a match touches counts as a matching line.
  const starts = lineStarts(text);
  const lineAt = (offset: number) => lineOf(starts, offset);
  const hit = new Set<number>();
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    const first = lineAt(match.index);
    const last = lineAt(Math.max(match.index, match.index + match[0].length - 1));
    for (let line = first; line <= last && line < lines.length; line++) hit.add(line);
    if (match[0].length === 0) regex.lastIndex++;
  }
  return [...hit].sort((a, b) => a - b);
}

function display(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function contentGroups(query: GrepQuery, lines: readonly string[], matched: readonly number[]): GrepLine[][] {
  const matchSet = new Set(matched);
  if (query.before === 0 && query.after === 0) {
    return [matched.map((index) => ({ line: index + 1, text: display(lines[index]!), match: true }))];
  }
  const groups: GrepLine[][] = [];
  let start = -1;
  let end = -1;
  const flush = () => {
    if (start < 0) return;
    const group: GrepLine[] = [];
    for (let index = start; index <= end; index++)
      group.push({ line: index + 1, text: display(lines[index]!), match: matchSet.has(index) });
    groups.push(group);
  };
  for (const index of matched) {
    const from = Math.max(0, index - query.before);
    const to = Math.min(lines.length - 1, index + query.after);
    if (start >= 0 && from <= end + 1) end = Math.max(end, to);
    else {
      flush();
      start = from;
      end = to;
    }
  }
  flush();
  return groups;
}

export async function grepWithJavaScript(query: GrepQuery, signal?: AbortSignal): Promise<GrepOutcome> {
  const regex = compile(query);
  if (typeof regex === 'string') return { ok: false, error: regex };
  const candidates = await candidateFiles(query, signal);
  if (typeof candidates === 'string') return { ok: false, error: candidates };
  const files: GrepFileHits[] = [];
  for (const file of candidates) {
    if (signal?.aborted) return { ok: false, error: 'grep was aborted' };
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(query.base, file));
    } catch {
      continue;
    }
    // Binary files are skipped, as ripgrep does.
    if (bytes.includes(0)) continue;
    const text = bytes.toString('utf8');
    const lines = splitLines(text);
    const matched = matchingLines(query, regex, text, lines);
    if (matched.length === 0) continue;
    if (query.mode === 'files') files.push({ path: file });
    else if (query.mode === 'count') files.push({ path: file, count: matched.length });
    else files.push({ path: file, groups: contentGroups(query, lines, matched) });
  }
  return { ok: true, files };
}
