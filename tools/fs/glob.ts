// glob: files matching a pattern, newest first, respecting ignore files and never listing sensitive files.
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import {
  defineRuntimeTool,
  errorResult,
  textResult,
  type ToolContext,
  type ToolResult,
  type ToolTraits,
} from '../contract.js';
import { isRecord } from '../util/is-record.js';
import { walkFiles, type WalkResult } from './ignore-walk.js';
import { booleanArguments } from './tool-args.js';
import { realRoot, resolveToolPath, workspacePolicy, hiddenUnder } from './workspace-paths.js';

export const GLOB_MAX_RESULTS = 100;

export const globParameters = Type.Object({
  pattern: Type.String({ description: 'Glob pattern relative to path, e.g. "**/*.ts", "src/**/*.{ts,tsx}", "*.md".' }),
  path: Type.Optional(Type.String({ description: 'Folder to search from (default: the workspace root).' })),
  include_ignored: Type.Optional(
    Type.Boolean({ description: 'Also list files ignored by .gitignore, .ignore and .rgignore.' }),
  ),
});

function prepareGlobArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const args = { ...raw };
  booleanArguments(args, ['include_ignored']);
  return args;
}

function patternProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'pattern is empty; give a glob such as "**/*.ts"';
  if (path.isAbsolute(pattern))
    return `pattern ${JSON.stringify(pattern)} is absolute; give a pattern relative to path (and set path to the folder)`;
  if (pattern.split('/').includes('..'))
    return `pattern ${JSON.stringify(pattern)} contains "..": patterns cannot leave path; set path to the folder instead`;
  return undefined;
}

function leavesFolder(pattern: string, display: string, outside: string): string {
  const where = display === '.' ? 'the workspace' : display;
  return `pattern ${JSON.stringify(pattern)} reaches outside ${where} (to ${outside}); glob lists only files inside path. Set path to the folder to search instead.`;
}

interface Dated {
  file: string;
  mtimeMs: number;
}

const STAT_BATCH = 1000;

/**
 * Newest first; equal times by path, so the order is stable. Synchronous stats in batches: several times
 * faster than thousands of promise-based ones, and the event loop still gets a turn between batches.
 */
async function newestFirst(root: string, files: readonly string[]): Promise<Dated[]> {
  const dated: Dated[] = new Array(files.length);
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  for (let start = 0; start < files.length; start += STAT_BATCH) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(files.length, start + STAT_BATCH);
    for (let i = start; i < end; i++) {
      const file = files[i]!;
      dated[i] = { file, mtimeMs: statSync(prefix + file, { throwIfNoEntry: false })?.mtimeMs ?? 0 };
    }
  }
  return dated.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

export async function executeGlob(
  ctx: ToolContext,
  input: { pattern: string; path?: string; include_ignored?: boolean },
  signal?: AbortSignal,
): Promise<ToolResult> {
  const problem = patternProblem(input.pattern);
  if (problem) return errorResult(problem);
  const resolved = await resolveToolPath(ctx, input.path ?? '.', 'read');
  if (!resolved.ok) return errorResult(resolved.error);
  const folder = resolved.value;
  if (!folder.exists) return errorResult(`${folder.display} does not exist.`);
  if (!(await stat(folder.real)).isDirectory())
    return errorResult(`${folder.display} is a file; path must be a folder to search from.`);
  const hidden = await hiddenUnder(ctx, folder.root);
  const walkOptions = {
    base: folder.root,
    searchRoot: folder.real,
    patterns: [input.pattern],
    includeIgnored: input.include_ignored === true,
    hidden,
    ...(signal ? { signal } : {}),
  };
  let walked: WalkResult;
  try {
    walked = await walkFiles(walkOptions);
  } catch (error) {
    return errorResult(`glob failed: ${(error as Error).message}`);
  }
  const found = walked.files;
  if (found.length === 0 && walked.outside.length > 0)
    return errorResult(leavesFolder(input.pattern, folder.display, walked.outside[0]!));
  const workspaceRoot = await realRoot(workspacePolicy(ctx).root);
  const show = (file: string) => {
    const abs = path.join(folder.real, file);
    return folder.root === workspaceRoot ? path.relative(workspaceRoot, abs).split(path.sep).join('/') : abs;
  };
  if (found.length === 0) {
    const ignored = input.include_ignored
      ? ''
      : ' Ignored files (.gitignore, .ignore, .rgignore) were skipped; include_ignored: true lists them too.';
    return textResult(
      `No files match ${JSON.stringify(input.pattern)} in ${folder.display === '.' ? 'the workspace' : folder.display}.${ignored}`,
      { total: 0 },
    );
  }
  const sorted = await newestFirst(folder.real, found);
  const shown = sorted.slice(0, GLOB_MAX_RESULTS).map((entry) => show(entry.file));
  let text = shown.join('\n');
  if (sorted.length > GLOB_MAX_RESULTS) {
    text += `\n\n[Showing the ${GLOB_MAX_RESULTS} newest of ${sorted.length} matching files. Narrow the pattern or path to see the others.]`;
  }
  return textResult(text, { total: sorted.length, shown: shown.length });
}

/** glob's traits: it only reads; a rule's parentheses match the folder it lists (the workspace when none). */
export const GLOB_TRAITS = { readOnly: true, ruleArgument: 'path' } as const satisfies ToolTraits;

export const globTool = defineRuntimeTool({
  def: {
    ...GLOB_TRAITS,
    name: 'glob',
    description:
      'Find files by name pattern (e.g. "**/*.ts", "src/**/*.{ts,tsx}"), newest first by modification time, at most ' +
      `${GLOB_MAX_RESULTS} results. Respects .gitignore, .ignore and .rgignore (nested ones too) unless include_ignored; ` +
      'sensitive files (.env, keys, credentials) are never listed.',
    parameters: globParameters,
    prepareArguments: prepareGlobArguments,
    executionMode: 'parallel',
  },
  execute: (ctx, input, signal) => executeGlob(ctx, input, signal),
});
