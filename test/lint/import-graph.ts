// The file import graph of the sources and its circles (strongly connected components), for import-cycles.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every `.ts` file under `dir`, searched to any depth. */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The source file a relative specifier of `from` names (`./x.js` → `./x.ts`), or undefined for a package. */
function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), `${target}.ts`, path.join(target, 'index.ts'), target];
  return candidates.find((file) => file.endsWith('.ts') && existsSync(file) && statSync(file).isFile());
}

/**
 * The files each of `files` imports, among `files` themselves: static imports, `import type`, `export … from` and
 * the lazy `import('…')` all count.
 */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((ref) => resolve(file, ref.fileName))
      .filter((target): target is string => target !== undefined && known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of `graph` with more than one file, or one file importing itself (Tarjan). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;

  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };

  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

/**
 * One closed path through a circle, read as `a.ts → b.ts → a.ts` with paths relative to `root`: the shortest way from
 * the circle's first file back to itself, then the circle's other files, if any.
 */
export function describeCircle(graph: ReadonlyMap<string, readonly string[]>, circle: string[], root: string): string {
  const members = new Set(circle);
  const start = circle[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  let last: string | undefined;
  while (queue.length > 0 && last === undefined) {
    const here = queue.shift()!;
    for (const target of graph.get(here) ?? []) {
      if (target === start) last = last ?? here;
      if (!members.has(target) || target === start || cameFrom.has(target)) continue;
      cameFrom.set(target, here);
      queue.push(target);
    }
  }
  const walk = [start];
  for (let file = last; file !== undefined && file !== start; file = cameFrom.get(file)) walk.splice(1, 0, file);
  const relative = (file: string): string => path.relative(root, file);
  const rest = circle.filter((file) => !walk.includes(file));
  const others = rest.length > 0 ? ` (also in the circle: ${rest.map(relative).join(', ')})` : '';
  return `import circle: ${[...walk, start].map(relative).join(' → ')}${others}`;
}
