// grep: ripgrep over the workspace (or its JavaScript fallback when no rg is found), respecting ignore
// files, never searching sensitive files, paged with offset and head_limit.
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
import { formatGrep, GREP_DEFAULT_HEAD_LIMIT } from './grep-format.js';
import { grepWithJavaScript } from './grep-js.js';
import type { GrepOutcome, GrepOutputMode, GrepQuery } from './grep-query.js';
import { grepWithRipgrep } from './grep-rg.js';
import { findRipgrep } from './ripgrep-path.js';
import { isSensitivePath } from './sensitive.js';
import { booleanArguments, numberArguments, renameArgument } from './tool-args.js';
import { realRoot, resolveToolPath, workspacePolicy, hiddenUnder } from './workspace-paths.js';

const Count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));

export const grepParameters = Type.Object({
  pattern: Type.String({ description: 'Regular expression (ripgrep syntax), e.g. "function\\s+\\w+" or "TODO".' }),
  path: Type.Optional(Type.String({ description: 'File or folder to search (default: the whole workspace).' })),
  type: Type.Optional(Type.String({ description: 'Only files of this type, e.g. ts, js, py, rust, go, md.' })),
  glob: Type.Optional(
    Type.String({
      description: 'Only files matching this glob, e.g. "*.test.ts" or "src/**/*.{ts,tsx}"; "!*.min.js" excludes.',
    }),
  ),
  output_mode: Type.Optional(
    Type.Union([Type.Literal('files'), Type.Literal('content'), Type.Literal('count')], {
      description:
        '"files" (default): paths of matching files; "content": matching lines; "count": matching lines per file.',
    }),
  ),
  '-A': Count('content mode: lines to show after each match.'),
  '-B': Count('content mode: lines to show before each match.'),
  '-C': Count('content mode: lines to show before and after each match.'),
  '-i': Type.Optional(Type.Boolean({ description: 'Case-insensitive search.' })),
  '-n': Type.Optional(Type.Boolean({ description: 'content mode: show line numbers (default true).' })),
  multiline: Type.Optional(Type.Boolean({ description: 'Let the pattern span lines ("." also matches newlines).' })),
  offset: Count('Skip this many result lines (to page on).'),
  head_limit: Count(`At most this many result lines (default ${GREP_DEFAULT_HEAD_LIMIT}; 0 = no limit).`),
  include_ignored: Type.Optional(
    Type.Boolean({ description: 'Also search files ignored by .gitignore, .ignore and .rgignore.' }),
  ),
});

type GrepInput = {
  pattern: string;
  path?: string;
  type?: string;
  glob?: string;
  output_mode?: GrepOutputMode;
  '-A'?: number;
  '-B'?: number;
  '-C'?: number;
  '-i'?: boolean;
  '-n'?: boolean;
  multiline?: boolean;
  offset?: number;
  head_limit?: number;
  include_ignored?: boolean;
};

function prepareGrepArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const args = { ...raw };
  if (args.output_mode === 'files_with_matches') args.output_mode = 'files';
  renameArgument(args, 'context', '-C');
  renameArgument(args, 'ignore_case', '-i');
  renameArgument(args, 'line_numbers', '-n');
  numberArguments(args, ['-A', '-B', '-C', 'offset', 'head_limit']);
  booleanArguments(args, ['-i', '-n', 'multiline', 'include_ignored']);
  return args;
}

/** Runs a query with ripgrep when one is found, else with the JavaScript fallback. */
export async function runGrep(
  query: GrepQuery,
  signal?: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GrepOutcome & { backend: 'ripgrep' | 'javascript' }> {
  const rg = await findRipgrep(env);
  if (rg) return { ...(await grepWithRipgrep(rg.path, query, signal)), backend: 'ripgrep' };
  return { ...(await grepWithJavaScript(query, signal)), backend: 'javascript' };
}

export async function executeGrep(ctx: ToolContext, input: GrepInput, signal?: AbortSignal): Promise<ToolResult> {
  const resolved = await resolveToolPath(ctx, input.path ?? '.', 'read');
  if (!resolved.ok) return errorResult(resolved.error);
  const target = resolved.value;
  if (!target.exists) return errorResult(`${target.display} does not exist. Use glob to find files by name.`);
  const stats = await stat(target.real);
  if (!stats.isDirectory() && isSensitivePath(target.relToRoot)) {
    return errorResult(
      `${target.display} is a sensitive file (it may hold secrets); grep never searches sensitive files.`,
    );
  }
  const mode = input.output_mode ?? 'files';
  const context = input['-C'] ?? 0;
  const query: GrepQuery = {
    pattern: input.pattern,
    base: target.root,
    target: target.relToRoot,
    targetIsFile: !stats.isDirectory(),
    mode,
    ignoreCase: input['-i'] === true,
    before: mode === 'content' ? (input['-B'] ?? context) : 0,
    after: mode === 'content' ? (input['-A'] ?? context) : 0,
    multiline: input.multiline === true,
    includeIgnored: input.include_ignored === true,
    hidden: await hiddenUnder(ctx, target.root),
  };
  if (input.type) query.type = input.type;
  if (input.glob) query.glob = input.glob;
  const outcome = await runGrep(query, signal);
  if (!outcome.ok) return errorResult(outcome.error);
  const workspaceRoot = await realRoot(workspacePolicy(ctx).root);
  const show = target.root === workspaceRoot ? (file: string) => file : (file: string) => path.join(target.root, file);
  if (outcome.files.length === 0) {
    const where = target.display === '.' ? 'the workspace' : target.display;
    const ignored = query.includeIgnored
      ? ''
      : ' Files ignored by .gitignore, .ignore or .rgignore were skipped; include_ignored: true searches them too.';
    return textResult(`No matches for ${JSON.stringify(input.pattern)} in ${where}.${ignored}`, { total: 0 });
  }
  const formatted = formatGrep(outcome.files, query, show, input['-n'] !== false, {
    offset: input.offset ?? 0,
    headLimit: input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT,
  });
  let text = formatted.text;
  if (outcome.incomplete) text += `\n\n[Incomplete: ${outcome.incomplete}. Narrow the search with path, glob or type.]`;
  if (outcome.warning) text += `\n\n[ripgrep warnings: ${outcome.warning}]`;
  return textResult(text, { total: formatted.total, shown: formatted.shown, backend: outcome.backend });
}

/** grep's traits: it only reads; a rule's parentheses match the folder or file it searches (the workspace when none). */
export const GREP_TRAITS = { readOnly: true, ruleArgument: 'path' } as const satisfies ToolTraits;

export const grepTool = defineRuntimeTool({
  def: {
    ...GREP_TRAITS,
    name: 'grep',
    description:
      'Search file contents with a regular expression (ripgrep). output_mode "files" (default) lists matching files, ' +
      '"content" shows matching lines (path:line:text; with -A/-B/-C context lines use "-"), "count" gives matches per file. ' +
      'Filter with path, type (ts, py…) or glob. Results are sorted by path and paged: head_limit (default ' +
      `${GREP_DEFAULT_HEAD_LIMIT}, 0 = no limit) and offset. Respects .gitignore, .ignore and .rgignore unless include_ignored; ` +
      'sensitive files (.env, keys, credentials) are never searched.',
    parameters: grepParameters,
    prepareArguments: prepareGrepArguments,
    executionMode: 'parallel',
  },
  execute: (ctx, input, signal) => executeGrep(ctx, input, signal),
});
