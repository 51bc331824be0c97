// No import circle between source files: type-only imports, `export … from` and lazy `await import()` count too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../murmur-bin.js';
import { circles, describeCircle, importGraph, tsFiles } from './import-graph.js';

const ROOMS = ['api', 'cli', 'dashboards', 'host', 'orchestrator', 'protocol', 'roles', 'scheduler', 'swarm', 'tools'];

/** Each circle among `files`, described as the path of imports that closes it. */
function circlesAmong(files: string[], root: string): { files: string[]; message: string }[] {
  const graph = importGraph(files);
  return circles(graph).map((circle) => ({
    files: circle.map((file) => path.relative(root, file).split(path.sep).join('/')),
    message: describeCircle(graph, circle, root),
  }));
}

describe('the import graph', () => {
  it('has no circle between source files', () => {
    const files = ROOMS.flatMap((room) => tsFiles(path.join(ROOT, room)));
    expect(files.length).toBeGreaterThan(200);
    const found = circlesAmong(files, ROOT);
    expect(found.map((circle) => circle.message).join('\n')).toBe('');
  });

  describe('the checker', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });

    it('finds a circle made of a type import and a lazy import', () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-import-cycles-'));
      writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B | 'a';\n");
      writeFileSync(path.join(dir, 'b.ts'), "export type B = 'b';\nexport const load = () => import('./a.js');\n");
      writeFileSync(path.join(dir, 'c.ts'), "export { load } from './b.js';\n");
      const found = circlesAmong(tsFiles(dir), dir);
      expect(found).toEqual([{ files: ['a.ts', 'b.ts'], message: 'import circle: a.ts → b.ts → a.ts' }]);
    });

    it('finds no circle in a chain of imports', () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-import-cycles-'));
      writeFileSync(path.join(dir, 'a.ts'), "export { B } from './b.js';\n");
      writeFileSync(path.join(dir, 'b.ts'), "import type { C } from './c.js';\nexport type B = C;\n");
      writeFileSync(path.join(dir, 'c.ts'), "export type C = 'c';\n");
      expect(circlesAmong(tsFiles(dir), dir)).toEqual([]);
    });
  });
});
