// Workspace confinement: every path a tool touches resolves against the workspace root and must stay inside
// it (or an extra root configuration allows), also after following symlinks.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspacePolicy } from '../adapters.js';
import type { ToolContext } from '../contract.js';
import { fillPath } from './lazy-trees.js';

export type PathPurpose = 'read' | 'write';

export interface ResolvedPath {
  /** Absolute path as asked (symlinks not resolved). */
  abs: string;
  /** Real path (symlinks resolved; for a missing file, its nearest existing folder resolved). */
  real: string;
  /** The allowed root (real path) the file lies in. */
  root: string;
  /** What to show the model: relative to the workspace root when inside it, else absolute. */
  display: string;
  /** Relative to `root`, with forward slashes ('' for the root itself). */
  relToRoot: string;
  exists: boolean;
}

export type PathResolution = { ok: true; value: ResolvedPath } | { ok: false; error: string };

export function workspacePolicy(ctx: Pick<ToolContext, 'cwd' | 'workspace'>): WorkspacePolicy {
  return ctx.workspace ?? { root: ctx.cwd, extraRoots: [], allowSensitive: [] };
}

/** The hidden patterns that apply under `root` (they are written relative to the workspace root only). */
export async function hiddenUnder(
  ctx: Pick<ToolContext, 'cwd' | 'workspace'>,
  root: string,
): Promise<readonly string[]> {
  const policy = workspacePolicy(ctx);
  if (!policy.hidden || policy.hidden.length === 0) return [];
  return (await realRoot(policy.root)) === root ? policy.hidden : [];
}

const realRoots = new Map<string, string>();

/** The real path of a root folder, cached (roots do not move while tools run). */
export async function realRoot(dir: string): Promise<string> {
  const absolute = path.resolve(dir);
  let real = realRoots.get(absolute);
  if (real === undefined) {
    try {
      real = await realpath(absolute);
    } catch {
      real = absolute;
    }
    realRoots.set(absolute, real);
  }
  return real;
}

/** Whether `candidate` is `root` or lies under it (lexically; resolve symlinks first where they matter). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  // "..foo" is a name inside root; only ".." itself or a "../" start climbs out.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** Real path of `abs`; when it does not exist, the real path of its nearest existing ancestor plus the rest. */
async function realOrNearest(abs: string): Promise<{ real: string; exists: boolean }> {
  try {
    return { real: await realpath(abs), exists: true };
  } catch {
    // fall through: walk up to the nearest folder that exists
  }
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    const parent = path.dirname(current);
    rest.unshift(path.basename(current));
    if (parent === current) return { real: abs, exists: false };
    current = parent;
    try {
      const real = await realpath(current);
      return { real: path.join(real, ...rest), exists: false };
    } catch {
      // keep walking up
    }
  }
}

/**
 * The folders a tool may touch for a purpose: the workspace root, the extra roots, and for reading also the
 * session folder (so spilled tool outputs can be read and searched back).
 */
export async function allowedRoots(
  ctx: Pick<ToolContext, 'cwd' | 'workspace' | 'session'>,
  purpose: PathPurpose,
): Promise<string[]> {
  const policy = workspacePolicy(ctx);
  const roots = [await realRoot(policy.root)];
  for (const extra of policy.extraRoots) roots.push(await realRoot(extra));
  if (purpose === 'read' && ctx.session) {
    roots.push(await realRoot(ctx.session.dir));
    roots.push(await realRoot(ctx.session.toolOutputsDir));
  }
  return roots;
}

/** Resolves a path the model gave against the workspace and refuses one that leaves the allowed roots. */
export async function resolveToolPath(
  ctx: Pick<ToolContext, 'cwd' | 'workspace' | 'session'>,
  input: string,
  purpose: PathPurpose,
): Promise<PathResolution> {
  if (typeof input !== 'string' || input.trim() === '')
    return { ok: false, error: 'path is empty: give a file or folder path inside the workspace' };
  if (input.includes('\0')) return { ok: false, error: `path ${JSON.stringify(input)} contains a NUL byte` };
  const policy = workspacePolicy(ctx);
  const workspaceRoot = await realRoot(policy.root);
  const roots = await allowedRoots(ctx, purpose);
  const lexicalBase = path.resolve(policy.root);
  const abs = path.isAbsolute(input) ? path.resolve(input) : path.resolve(lexicalBase, input);
  // Lexical check first, so `../x` gets the plain message rather than a symlink one.
  const lexicalRoots = [lexicalBase, ...roots];
  if (!lexicalRoots.some((root) => isInside(root, abs))) {
    return {
      ok: false,
      error: `path ${JSON.stringify(input)} resolves to ${abs}, outside the workspace ${workspaceRoot}${extraNote(roots.length)}; use a path inside the workspace`,
    };
  }
  // A swarm worktree made without a checkout writes the file now (lazy-trees.ts).
  await fillPath(abs);
  const { real, exists } = await realOrNearest(abs);
  const root = roots.find((candidate) => isInside(candidate, real));
  if (root === undefined) {
    return {
      ok: false,
      error: `path ${JSON.stringify(input)} goes through a symlink to ${real}, outside the workspace ${workspaceRoot}${extraNote(roots.length)}; symlinks may not lead out of the workspace`,
    };
  }
  const display = isInside(workspaceRoot, real) ? toPosix(path.relative(workspaceRoot, real)) || '.' : real;
  return { ok: true, value: { abs, real, root, display, relToRoot: toPosix(path.relative(root, real)), exists } };
}

function extraNote(rootCount: number): string {
  return rootCount > 1 ? ' (and the extra roots configuration allows)' : '';
}
