// A source file past ~400 lines is usually two rooms (README.md, "Layout"): the limit is kept, not remembered.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../murmur-bin.js';

const ROOMS = ['protocol', 'orchestrator', 'scheduler', 'tools', 'roles', 'swarm', 'dashboards', 'host', 'cli', 'api'];
const LIMIT = 400;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('source files', () => {
  it(`stay within ${LIMIT} lines`, () => {
    const files = ROOMS.flatMap((room) => sources(path.join(ROOT, room)));
    expect(files.length).toBeGreaterThan(200);
    const long = files
      .map((file) => ({ file: path.relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > LIMIT);
    expect(long).toEqual([]);
  });
});
