// A real consumer: the packed tarball unpacked into a fresh ESM TypeScript project (moduleResolution nodenext),
// type-checked with the repo's tsc and run on the scripted model; deep imports must fail, for tsc and for Node.
// The tarball is unpacked as npm would unpack it; its dependencies are linked from this repo's node_modules so
// the test needs no registry (npm install --offline would need them all in the npm cache).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/dist\/?$/, '');
const ROOT = REPO.endsWith('/') ? REPO.slice(0, -1) : REPO;
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let dir: string;
let project: string;

const PROGRAM = `import { createMurmur, MurmurOptionsError, type SwarmReport } from 'murmur';
import { scriptedModel } from 'murmur/testing';

const model = scriptedModel({
  agents: [{ match: { role: 'worker' }, turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] }, { text: 'checked' }] }],
});
const murmur = await createMurmur({ cwd: process.cwd(), model, sessions: false });
const report: SwarmReport = await murmur.swarm({ template: 'Check {{item}}', items: ['a.txt', 'b.txt', 'c.txt'], role: 'worker' });
await murmur.close();
let refused = '';
try {
  await createMurmur({ cwd: process.cwd(), model, permissionMode: 'never' as 'auto' });
} catch (error) {
  if (error instanceof MurmurOptionsError) refused = error.option;
}
let deep = '';
try {
  await import('murmur/' + 'dist/orchestrator/engine.js');
} catch (error) {
  deep = (error as NodeJS.ErrnoException).code ?? String(error);
}
console.log(JSON.stringify({ status: report.status, items: report.items.map((i) => [i.item, i.outcome, i.text]), refused, deep }));
`;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-consumer-')));
  // dist/ is what `tsc -p .` just built (npm test runs it first); prepare's full build is skipped.
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  project = path.join(dir, 'consumer');
  const modules = path.join(project, 'node_modules');
  mkdirSync(path.join(modules, 'murmur'), { recursive: true });
  execFileSync('tar', ['-xzf', path.join(dir, packed), '-C', path.join(modules, 'murmur'), '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(path.join(modules, 'murmur', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const dep of [...Object.keys(manifest.dependencies), '@types/node']) {
    mkdirSync(path.dirname(path.join(modules, dep)), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(modules, dep), 'dir');
  }
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { murmur: `file:../${packed}` } }));
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node'], outDir: 'out', skipLibCheck: false }, include: ['main.ts'] }),
  );
  writeFileSync(path.join(project, 'main.ts'), PROGRAM);
  for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(path.join(project, name), name);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a consumer project', () => {
  it('type-checks a program on the root entry and runs a swarm of three items, the report coming back as data', () => {
    const tsc = spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    const run = spawnSync(process.execPath, [path.join(project, 'out', 'main.js')], { cwd: project, encoding: 'utf8', env: { ...process.env, MURMUR_MODEL: '' } });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { status: string; items: string[][]; refused: string; deep: string };
    expect(result.status).toBe('completed');
    expect(result.items).toEqual([
      ['a.txt', 'completed', 'checked'],
      ['b.txt', 'completed', 'checked'],
      ['c.txt', 'completed', 'checked'],
    ]);
    expect(result.refused).toBe('permissionMode');
    expect(result.deep).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  }, 120_000);

  it('refuses a deep import at type-check time', () => {
    writeFileSync(path.join(project, 'deep.ts'), "import { Engine } from 'murmur/dist/orchestrator/engine.js';\nexport const e: unknown = Engine;\n");
    writeFileSync(
      path.join(project, 'tsconfig.deep.json'),
      JSON.stringify({ extends: './tsconfig.json', include: ['deep.ts'], compilerOptions: { noEmit: true } }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', path.join(project, 'tsconfig.deep.json')], { encoding: 'utf8' });
    expect(tsc.status).not.toBe(0);
    expect(tsc.stdout).toMatch(/TS2307|TS2834|not exported|Cannot find module/);
  }, 60_000);
});
