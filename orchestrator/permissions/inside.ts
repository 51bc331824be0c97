// Whether a path lies in the workspace once symlinks are followed (a link inside the workspace may point out).
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** The real path of `abs`, or of its nearest existing ancestor with the rest appended. */
export async function realOrNearest(abs: string): Promise<string> {
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    try {
      return path.join(await realpath(current), ...rest);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return abs;
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}

export function isInsideFolder(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  // `..keys/a.pem` is inside: only `..` itself or a `../` prefix leaves the folder.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export async function isInsideWorkspace(root: string, abs: string): Promise<boolean> {
  if (!isInsideFolder(root, abs)) return false;
  const [realRoot, real] = await Promise.all([realOrNearest(root), realOrNearest(abs)]);
  return isInsideFolder(realRoot, real);
}
