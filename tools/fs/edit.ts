// edit: replaces an exact piece of text in a file, refusing when the file changed since this agent read it.
import { readFile, stat } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import writeFileAtomic from 'write-file-atomic';
import {
  defineRuntimeTool,
  errorResult,
  textResult,
  type ToolContext,
  type ToolResult,
  type ToolTraits,
} from '../contract.js';
import { isRecord } from '../util/is-record.js';
import { applyEdit } from './edit-text.js';
import { withFileLock } from './file-locks.js';
import { sensitiveBlocked, sensitiveRefusal } from './sensitive.js';
import { booleanArguments, renameArgument } from './tool-args.js';
import { resolveToolPath, workspacePolicy } from './workspace-paths.js';

export const editParameters = Type.Object({
  path: Type.String({ description: 'File to edit: relative to the workspace root, or absolute inside it.' }),
  old_string: Type.String({
    description:
      "The exact text to replace, with its indentation and line breaks (without read's line-number prefixes). Must match exactly once unless replace_all.",
  }),
  new_string: Type.String({ description: 'The text to put in its place (must differ from old_string).' }),
  replace_all: Type.Optional(
    Type.Boolean({ description: 'Replace every occurrence instead of exactly one (default false).' }),
  ),
});

function prepareEditArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const args = { ...raw };
  renameArgument(args, 'file_path', 'path');
  booleanArguments(args, ['replace_all']);
  return args;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export async function executeEdit(
  ctx: ToolContext,
  input: { path: string; old_string: string; new_string: string; replace_all?: boolean },
): Promise<ToolResult> {
  const resolved = await resolveToolPath(ctx, input.path, 'write');
  if (!resolved.ok) return errorResult(resolved.error);
  const file = resolved.value;
  if (!file.exists) return errorResult(`${file.display} does not exist. To create a file, use write.`);
  if (sensitiveBlocked(file.relToRoot, workspacePolicy(ctx).allowSensitive))
    return errorResult(sensitiveRefusal(file.display, 'Editing'));
  return withFileLock(file.real, async () => {
    const before = await stat(file.real);
    if (before.isDirectory()) return errorResult(`${file.display} is a folder; give a file path.`);
    const lastRead = ctx.reads?.lastRead(file.real);
    if (lastRead && (lastRead.mtimeMs !== before.mtimeMs || lastRead.size !== before.size)) {
      return errorResult(
        `${file.display} changed on disk since you last read it (another agent or process wrote to it). ` +
          'Read it again, then make your edit against its current content.',
      );
    }
    const bytes = await readFile(file.real);
    if (bytes.includes(0)) return errorResult(`${file.display} is a binary file; edit changes text files only.`);
    const hasBom = bytes.subarray(0, 3).equals(BOM);
    const text = bytes.subarray(hasBom ? 3 : 0).toString('utf8');
    const outcome = applyEdit(text, input.old_string, input.new_string, input.replace_all === true, file.display);
    if (!outcome.ok) return errorResult(outcome.error);
    try {
      const body = Buffer.from(outcome.text, 'utf8');
      await writeFileAtomic(file.real, hasBom ? Buffer.concat([BOM, body]) : body);
    } catch (error) {
      return errorResult(`${file.display} could not be written: ${(error as Error).message}`);
    }
    const after = await stat(file.real);
    ctx.reads?.recordRead(file.real, { mtimeMs: after.mtimeMs, size: after.size });
    const count = outcome.replacements === 1 ? '1 replacement' : `${outcome.replacements} replacements`;
    return textResult(`Edited ${file.display}: ${count}.\n${outcome.diff}`, {
      path: file.display,
      replacements: outcome.replacements,
    });
  });
}

/** edit's traits: it changes the file its path names, which a rule's parentheses match (`edit(src/**)`). */
export const EDIT_TRAITS = { ruleArgument: 'path', writesPath: true } as const satisfies ToolTraits;

export const editTool = defineRuntimeTool({
  def: {
    ...EDIT_TRAITS,
    name: 'edit',
    description:
      'Replace exact text in a file. old_string must match exactly once (include enough surrounding lines), unless ' +
      'replace_all is true. Line endings (CRLF) and a byte-order mark are kept. Fails when the file changed on disk since ' +
      'you last read it: read it again first. Returns a small diff. To create a file, use write.',
    parameters: editParameters,
    prepareArguments: prepareEditArguments,
    executionMode: 'sequential',
  },
  execute: (ctx, input) => executeEdit(ctx, input),
});
