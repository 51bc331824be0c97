// The steps every reading tool takes before it reads a byte: resolve the path inside the workspace, check it
// exists, is not a sensitive file (unless allowed) and is a regular file or folder, then open it.
import { open, type FileHandle } from 'node:fs/promises';
import type { ToolContext } from '../contract.js';
import { notAFile } from './file-kind.js';
import { sensitiveBlocked, sensitiveRefusal } from './sensitive.js';
import { resolveToolPath, workspacePolicy, type ResolvedPath } from './workspace-paths.js';

export type Opened = { ok: true; file: ResolvedPath; handle: FileHandle } | { ok: false; error: string };

export async function openForReading(ctx: ToolContext, input: string): Promise<Opened> {
  const resolved = await resolveToolPath(ctx, input, 'read');
  if (!resolved.ok) return { ok: false, error: resolved.error };
  const file = resolved.value;
  if (!file.exists) return { ok: false, error: `${file.display} does not exist. Use glob to find files by name.` };
  if (sensitiveBlocked(file.relToRoot, workspacePolicy(ctx).allowSensitive))
    return { ok: false, error: sensitiveRefusal(file.display) };
  const special = await notAFile(file.real, file.display);
  if (special) return { ok: false, error: special };
  try {
    return { ok: true, file, handle: await open(file.real, 'r') };
  } catch (error) {
    return { ok: false, error: `${file.display} cannot be opened: ${(error as Error).message}` };
  }
}
