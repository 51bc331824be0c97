// What a one-turn `murmur run` loads: the bundled command is run once with a resolve hook that lists every module
// it loads, and the source maps of those chunks say which source files they hold. What the run does not use loads on
// first use (start-up was mostly reading and compiling chunks), so none of it may creep back onto the start-up path.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from './helpers.js';
import { workspace } from './helpers.js';

const LAZY = [
  /node_modules\/(execa|yaml|croner|tinyglobby|fdir|picomatch)\//,
  /\/swarm\/(runner|worktree|launch|local-launcher)\.ts$/,
  /\/scheduler\/(store|schedule)\.ts$/,
];

/** The source files of the bundle's chunks a one-turn run loads. */
function sourcesLoadedByOneTurnRun(): string[] {
  const dir = workspace({
    's.json': JSON.stringify({ agents: [{ match: { role: 'main' }, turns: [{ text: 'done' }] }] }),
  });
  const list = join(dir, 'loaded.txt');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(list)}, resolved.url + '\\n');
  return resolved;
}`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  execFileSync(
    process.execPath,
    ['--import', register, CLI, 'run', '--no-dashboard', '--model', 'scripted:s.json', 'hi'],
    {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, MURMUR_MODEL: '', NO_COLOR: '1' },
    },
  );
  const chunks = new Set(
    readFileSync(list, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:') && url.includes('/dist/bundle/'))
      .map((url) => fileURLToPath(url)),
  );
  const sources: string[] = [];
  for (const chunk of chunks) {
    if (!existsSync(`${chunk}.map`)) continue;
    sources.push(...(JSON.parse(readFileSync(`${chunk}.map`, 'utf8')) as { sources: string[] }).sources);
  }
  return sources;
}

describe('a one-turn murmur run', () => {
  it('loads neither execa, tinyglobby, croner, the YAML library, the swarm machinery nor the scheduler store', () => {
    const sources = sourcesLoadedByOneTurnRun();
    expect(sources.some((source) => source.endsWith('cli/run.ts'))).toBe(true);
    expect(sources.filter((source) => LAZY.some((rule) => rule.test(source)))).toEqual([]);
  });
});
