// The ripgrep backend of grep: builds the command line, runs rg in the query's base folder and parses its
// NUL-separated output into per-file hits.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { GrepFileHits, GrepLine, GrepOutcome, GrepOutputMode, GrepQuery } from './grep-query.js';
import { hiddenPathCheck } from './ignore-walk.js';
import { SENSITIVE_PATTERNS } from './sensitive.js';

/** Beyond this much output the search stops and says the result is incomplete. */
export const RG_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const MAX_STDERR_BYTES = 8 * 1024;

/** The ripgrep arguments for a query (also used by the benchmark to run raw rg the same way). */
export function ripgrepArguments(query: GrepQuery): string[] {
  const args = [
    '--no-config',
    '--null',
    '--with-filename',
    '--no-heading',
    '--color=never',
    '--hidden',
    '--no-require-git',
    '--no-ignore-global',
    '--no-ignore-exclude',
  ];
  if (query.includeIgnored) args.push('--no-ignore');
  if (query.mode === 'files') args.push('--files-with-matches');
  else if (query.mode === 'count') args.push('--count');
  else {
    // Always numbered: match and context lines are told apart by the separator after the number.
    args.push('--line-number');
    if (query.before > 0) args.push('-B', String(query.before));
    if (query.after > 0) args.push('-A', String(query.after));
  }
  if (query.ignoreCase) args.push('--ignore-case');
  if (query.multiline) args.push('--multiline', '--multiline-dotall');
  if (query.type) args.push('--type', query.type);
  if (query.glob) args.push('--glob', query.glob);
  // Last, so they win over the user's glob: .git internals and sensitive files are never searched.
  args.push('--glob', '!.git');
  for (const pattern of SENSITIVE_PATTERNS) args.push('--iglob', `!${pattern}`);
  for (const pattern of query.hidden ?? []) args.push('--glob', `!${pattern}`);
  args.push('--regexp', query.pattern, '--', query.target === '' ? '.' : query.target);
  return args;
}

function stripDotSlash(file: string): string {
  return file.startsWith('./') ? file.slice(2) : file;
}

function parseFiles(output: string): GrepFileHits[] {
  return output
    .split('\0')
    .filter((file) => file.length > 0)
    .map((file) => ({ path: stripDotSlash(file) }));
}

function parseCounts(output: string): GrepFileHits[] {
  const files: GrepFileHits[] = [];
  for (const line of output.split('\n')) {
    const nul = line.indexOf('\0');
    if (nul === -1) continue;
    files.push({ path: stripDotSlash(line.slice(0, nul)), count: Number(line.slice(nul + 1)) });
  }
  return files;
}

const NUMBERED = /^(\d+)([:-])/;

function parseContent(output: string): GrepFileHits[] {
  const byPath = new Map<string, GrepFileHits>();
  let current: GrepLine[] | undefined;
  let currentPath = '';
  for (const raw of output.split('\n')) {
    if (raw === '--') {
      current = undefined;
      continue;
    }
    const nul = raw.indexOf('\0');
    if (nul === -1) continue;
    const file = stripDotSlash(raw.slice(0, nul));
    const rest = raw.slice(nul + 1);
    const numbered = NUMBERED.exec(rest);
    if (!numbered) continue;
    let text = rest.slice(numbered[0].length);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    let hits = byPath.get(file);
    if (!hits) {
      hits = { path: file, groups: [] };
      byPath.set(file, hits);
    }
    if (!current || file !== currentPath) {
      current = [];
      hits.groups!.push(current);
      currentPath = file;
    }
    current.push({ line: Number(numbered[1]), text, match: numbered[2] === ':' });
  }
  return [...byPath.values()];
}

export function parseRipgrepOutput(mode: GrepOutputMode, output: string): GrepFileHits[] {
  if (mode === 'files') return parseFiles(output);
  if (mode === 'count') return parseCounts(output);
  return parseContent(output);
}

export interface RawRun {
  stdout: Buffer;
  stderr: string;
  exitCode: number | null;
  truncated: boolean;
  aborted: boolean;
}

/** Runs rg and collects its output (bounded). */
export function runRipgrep(
  rgPath: string,
  args: readonly string[],
  cwd: string,
  signal?: AbortSignal,
): Promise<RawRun> {
  return new Promise((resolve) => {
    const child = spawn(rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let aborted = false;
    let stderr = '';
    const onAbort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (size + chunk.length > RG_MAX_OUTPUT_BYTES) {
        truncated = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString('utf8');
    });
    const finish = (exitCode: number | null, failure?: Error) => {
      signal?.removeEventListener('abort', onAbort);
      resolve({
        stdout: Buffer.concat(chunks, size),
        stderr: failure ? failure.message : stderr,
        exitCode,
        truncated,
        aborted,
      });
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code));
  });
}

/** ripgrep lets a --glob whitelist override ignore files; the tool's contract says ignored files stay out. */
async function withoutIgnored(query: GrepQuery, files: GrepFileHits[]): Promise<GrepFileHits[]> {
  const hidden = await hiddenPathCheck(
    query.base,
    query.target === '' ? query.base : path.join(query.base, query.target),
  );
  const kept: GrepFileHits[] = [];
  for (const file of files) if (!(await hidden(file.path))) kept.push(file);
  return kept;
}

export async function grepWithRipgrep(rgPath: string, query: GrepQuery, signal?: AbortSignal): Promise<GrepOutcome> {
  if (signal?.aborted) return { ok: false, error: 'grep was aborted' };
  const run = await runRipgrep(rgPath, ripgrepArguments(query), query.base, signal);
  if (run.aborted) return { ok: false, error: 'grep was aborted' };
  const output = run.stdout.toString('utf8');
  if (run.exitCode === 2 && output.length === 0 && !run.truncated) {
    return { ok: false, error: `ripgrep failed: ${run.stderr.trim() || 'exit code 2'}` };
  }
  if (run.exitCode === null && !run.truncated)
    return { ok: false, error: `ripgrep could not run: ${run.stderr.trim()}` };
  let text = output;
  if (run.truncated) {
    // Drop the last, probably cut, record.
    const cut = text.lastIndexOf(query.mode === 'files' ? '\0' : '\n');
    text = cut === -1 ? '' : text.slice(0, cut + 1);
  }
  let files = parseRipgrepOutput(query.mode, text);
  if (query.glob && !query.glob.startsWith('!') && !query.includeIgnored && !query.targetIsFile)
    files = await withoutIgnored(query, files);
  const outcome: GrepOutcome = { ok: true, files };
  if (run.truncated)
    outcome.incomplete = `the search produced more than ${RG_MAX_OUTPUT_BYTES / (1024 * 1024)} MB of output and was stopped`;
  if (run.exitCode === 2 && run.stderr.trim()) outcome.warning = run.stderr.trim().split('\n').slice(0, 5).join('\n');
  return outcome;
}
