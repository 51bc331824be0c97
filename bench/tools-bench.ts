// Benchmark: what do the workspace tools cost over raw tools on a large tree (the project's own node_modules)?
//  - grep through the tool vs raw `rg` with the same arguments (ripgrepArguments), spawned the same way;
//  - glob through the tool vs tinyglobby directly, both with .gitignore/.ignore/.rgignore handling: the
//    baseline finds the ignore files with a second tinyglobby pass and filters with `ignore`, the
//    straightforward way to add ignore files to tinyglobby. (Bare tinyglobby, no ignore files, is printed too.)
// Same process, same run, alternating order, several repetitions; medians and ratios.
// Targets: grep <= 1.3x raw rg, glob <= 1.5x tinyglobby.
//
// Run: npx tsc -p . ; node -e "import('./dist/bench/tools-bench.js').then(m => m.benchWorkspaceTools(console.log))"
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import ignore, { type Ignore } from 'ignore';
import { glob } from 'tinyglobby';
import type { ToolContext } from '../tools/contract.js';
import { executeGlob } from '../tools/fs/glob.js';
import { executeGrep } from '../tools/fs/grep.js';
import type { GrepQuery } from '../tools/fs/grep-query.js';
import { ripgrepArguments, runRipgrep } from '../tools/fs/grep-rg.js';
import { findRipgrep } from '../tools/fs/ripgrep-path.js';
import { IGNORE_FILE_NAMES } from '../tools/fs/ignore-walk.js';

const REPETITIONS = 9;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Runs a and b alternately (a first on even rounds) after one warm-up each; medians in ms. */
async function compare(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<{ a: number; b: number }> {
  await a();
  await b();
  const timesA: number[] = [];
  const timesB: number[] = [];
  for (let round = 0; round < REPETITIONS; round++) {
    if (round % 2 === 0) {
      timesA.push(await time(a));
      timesB.push(await time(b));
    } else {
      timesB.push(await time(b));
      timesA.push(await time(a));
    }
  }
  return { a: median(timesA), b: median(timesB) };
}

async function projectRoot(): Promise<string> {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'node_modules'))) return realpath(dir);
    const parent = path.dirname(dir);
    if (parent === dir) return realpath(process.cwd());
    dir = parent;
  }
}

/** tinyglobby plus nested ignore files, done directly: list, find the ignore files, filter. */
async function tinyglobbyWithIgnoreFiles(cwd: string, pattern: string): Promise<string[]> {
  const [files, ignoreFiles] = await Promise.all([
    glob(pattern, { cwd, dot: true, followSymbolicLinks: false, ignore: ['**/.git/**'] }),
    glob(
      IGNORE_FILE_NAMES.map((name) => `**/${name}`),
      { cwd, dot: true, followSymbolicLinks: false, ignore: ['**/.git/**'] },
    ),
  ]);
  const rules = new Map<string, Ignore>();
  for (const file of ignoreFiles.sort()) {
    const dir = path.posix.dirname(file);
    const rule = rules.get(dir) ?? ignore();
    rule.add(await readFile(path.join(cwd, file), 'utf8'));
    rules.set(dir, rule);
  }
  if (rules.size === 0) return files;
  return files.filter((file) => {
    for (const [dir, rule] of rules) {
      const prefix = dir === '.' ? '' : `${dir}/`;
      if (file.startsWith(prefix) && rule.ignores(file.slice(prefix.length))) return false;
    }
    return true;
  });
}

export async function benchWorkspaceTools(report: (line: string) => void): Promise<void> {
  const root = await projectRoot();
  const tree = path.join(root, 'node_modules');
  const rg = await findRipgrep();
  if (!rg) {
    report('tools-bench: no ripgrep found; nothing to compare');
    return;
  }
  const ctx: ToolContext = { agentId: 'bench', role: 'explore', cwd: root, callId: 'bench' };
  report(`tools-bench: tree ${tree}, ripgrep ${rg.path} (${rg.source}), ${REPETITIONS} repetitions, medians`);

  const grepCases: Array<{ label: string; input: Parameters<typeof executeGrep>[1] }> = [
    { label: 'files "function"', input: { pattern: 'function', path: 'node_modules' } },
    {
      label: 'content "createRequire\\("',
      input: { pattern: 'createRequire\\(', path: 'node_modules', output_mode: 'content' },
    },
    {
      label: 'count -i "todo" type js',
      input: { pattern: 'todo', path: 'node_modules', output_mode: 'count', '-i': true, type: 'js' },
    },
  ];
  for (const { label, input } of grepCases) {
    const mode = input.output_mode ?? 'files';
    const query: GrepQuery = {
      pattern: input.pattern,
      base: root,
      target: 'node_modules',
      targetIsFile: false,
      mode,
      ignoreCase: input['-i'] === true,
      before: 0,
      after: 0,
      multiline: false,
      includeIgnored: false,
    };
    if (input.type) query.type = input.type;
    const args = ripgrepArguments(query);
    let toolTotal = 0;
    let rawBytes = 0;
    const figures = await compare(
      async () => {
        const result = await executeGrep(ctx, input);
        toolTotal = (result.details as { total?: number }).total ?? 0;
      },
      async () => {
        const run = await runRipgrep(rg.path, args, root);
        rawBytes = run.stdout.length;
      },
    );
    report(
      `grep ${label}: tool ${figures.a.toFixed(1)} ms, raw rg ${figures.b.toFixed(1)} ms, ratio ${(figures.a / figures.b).toFixed(2)}x ` +
        `(target <= 1.3x; ${toolTotal} result lines, raw output ${rawBytes} bytes)`,
    );
  }

  const globCases = ['**/*.js', '**/package.json', '**/*.{ts,mts,cts}'];
  for (const pattern of globCases) {
    let toolTotal = 0;
    let baselineTotal = 0;
    const figures = await compare(
      async () => {
        const result = await executeGlob(ctx, { pattern, path: 'node_modules' });
        toolTotal = (result.details as { total?: number }).total ?? 0;
      },
      async () => {
        baselineTotal = (await tinyglobbyWithIgnoreFiles(tree, pattern)).length;
      },
    );
    const bareTimes: number[] = [];
    for (let round = 0; round < 3; round++)
      bareTimes.push(await time(() => glob(pattern, { cwd: tree, dot: true, followSymbolicLinks: false })));
    const bare = median(bareTimes);
    report(
      `glob ${pattern}: tool ${figures.a.toFixed(1)} ms, tinyglobby + ignore files ${figures.b.toFixed(1)} ms, ratio ${(figures.a / figures.b).toFixed(2)}x ` +
        `(target <= 1.5x; ${toolTotal} vs ${baselineTotal} files; bare tinyglobby ${bare.toFixed(1)} ms)`,
    );
  }
}
