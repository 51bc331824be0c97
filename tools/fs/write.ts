// write: creates or replaces a file atomically (keeping its mode), or appends to it.
import { appendFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
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
import { withFileLock } from './file-locks.js';
import { sensitiveBlocked, sensitiveRefusal } from './sensitive.js';
import { renameArgument } from './tool-args.js';
import { resolveToolPath, workspacePolicy } from './workspace-paths.js';

export const writeParameters = Type.Object({
  path: Type.String({
    description: 'File to write: relative to the workspace root, or absolute inside it. Missing folders are created.',
  }),
  content: Type.String({ description: 'The text to write.' }),
  mode: Type.Optional(
    Type.Union([Type.Literal('overwrite'), Type.Literal('append')], {
      description:
        '"overwrite" (default) replaces the whole file; "append" adds content at the end (no newline is added).',
    }),
  ),
});

function prepareWriteArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const args = { ...raw };
  renameArgument(args, 'file_path', 'path');
  return args;
}

export async function executeWrite(
  ctx: ToolContext,
  input: { path: string; content: string; mode?: 'overwrite' | 'append' },
): Promise<ToolResult> {
  const resolved = await resolveToolPath(ctx, input.path, 'write');
  if (!resolved.ok) return errorResult(resolved.error);
  const file = resolved.value;
  // Writing a secrets file is refused like reading or editing one: the model could plant or clobber credentials.
  if (sensitiveBlocked(file.relToRoot, workspacePolicy(ctx).allowSensitive))
    return errorResult(sensitiveRefusal(file.display, 'Writing'));
  const mode = input.mode ?? 'overwrite';
  return withFileLock(file.real, async () => {
    let before: { size: number } | undefined;
    try {
      const stats = await stat(file.real);
      if (stats.isDirectory()) return errorResult(`${file.display} is a folder; give a file path.`);
      before = { size: stats.size };
    } catch {
      before = undefined;
    }
    try {
      await mkdir(path.dirname(file.real), { recursive: true });
      if (mode === 'append') await appendFile(file.real, input.content, 'utf8');
      else await writeFileAtomic(file.real, input.content, { encoding: 'utf8' });
    } catch (error) {
      return errorResult(`${file.display} could not be written: ${(error as Error).message}`);
    }
    const after = await stat(file.real);
    ctx.reads?.recordRead(file.real, { mtimeMs: after.mtimeMs, size: after.size });
    const bytes = Buffer.byteLength(input.content, 'utf8');
    // details.path: the file changed, as shown to the model (a verifier's diff reads it).
    const details = { path: file.display, bytes, mode };
    if (mode === 'append')
      return textResult(`Appended ${bytes} bytes to ${file.display} (now ${after.size} bytes).`, details);
    const what = before ? `replaced its ${before.size} bytes` : 'new file';
    return textResult(`Wrote ${bytes} bytes to ${file.display} (${what}).`, details);
  });
}

/** write's traits: it changes the file its path names, which a rule's parentheses match (`write(docs/**)`). */
export const WRITE_TRAITS = { ruleArgument: 'path', writesPath: true } as const satisfies ToolTraits;

export const writeTool = defineRuntimeTool({
  def: {
    ...WRITE_TRAITS,
    name: 'write',
    description:
      'Write a text file in the workspace (sensitive files such as .env, keys and credentials are refused). mode "overwrite" (default) replaces the whole file atomically and keeps its ' +
      'permissions; "append" adds to the end without adding a newline. Creates missing parent folders. ' +
      'To change part of an existing file, prefer edit.',
    parameters: writeParameters,
    prepareArguments: prepareWriteArguments,
    executionMode: 'sequential',
  },
  execute: (ctx, input) => executeWrite(ctx, input),
});
