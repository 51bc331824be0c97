// The command users get: the command package's `bin` (packages/cli/package.json), resolved once. Every end-to-end test spawns this file (the esbuild
// bundle), never the tsc output in dist/cli/, so the tests run the program that ships.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'vitest.config.ts'))) return dir;
  }
  throw new Error(`no package root above ${from}`);
}

export const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

interface PackageJson {
  name: string;
  version: string;
  bin: Record<string, string>;
}

/** The command's package folder (the library's is packages/murmur-agents). */
export const COMMAND_DIR = path.join(ROOT, 'packages', 'cli');
export const LIBRARY_DIR = path.join(ROOT, 'packages', 'murmur-agents');

/** The command package's manifest. */
export const PACKAGE = JSON.parse(readFileSync(path.join(COMMAND_DIR, 'package.json'), 'utf8')) as PackageJson;

/** The absolute path of the `murmur` command as the command package's `bin` declares it. */
export const MURMUR_BIN = path.join(COMMAND_DIR, PACKAGE.bin.murmur!);

// The folders whose sources go into the bundle.
const SOURCE_ROOMS = [
  'orchestrator',
  'tools',
  'roles',
  'swarm',
  'dashboards',
  'cli',
  'host',
  'api',
  'protocol',
  'scheduler',
];

function newestSource(dir: string): { file: string; mtimeMs: number } | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const found = entry.isDirectory()
      ? newestSource(full)
      : entry.name.endsWith('.ts')
        ? { file: full, mtimeMs: statSync(full).mtimeMs }
        : undefined;
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** Why the bin cannot be trusted to hold the current sources (missing, or older than a source file), or undefined. */
export function staleBinReason(): string | undefined {
  if (!existsSync(MURMUR_BIN)) return `${MURMUR_BIN} (package.json's bin) is missing: run \`npm run build\` first`;
  const built = statSync(MURMUR_BIN).mtimeMs;
  let newest: { file: string; mtimeMs: number } | undefined;
  for (const room of SOURCE_ROOMS) {
    const found = newestSource(path.join(ROOT, room));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  if (newest && newest.mtimeMs > built) {
    return `${MURMUR_BIN} is older than ${path.relative(ROOT, newest.file)}: run \`npm run build\` (npm test does) so the tests run the current sources`;
  }
  return undefined;
}
