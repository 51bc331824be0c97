// The command users get, for the benchmarks that start it: the command package's `bin` (the bundle), resolved from the
// compiled bench in dist/bench/.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The absolute path of the command package's `bin.murmur` (packages/cli). */
export function murmurBin(): string {
  const commandDir = join(PACKAGE_ROOT, 'packages', 'cli');
  const manifest = JSON.parse(readFileSync(join(commandDir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  return join(commandDir, manifest.bin.murmur!);
}
