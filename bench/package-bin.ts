// The command users get, for the benchmarks that start it: package.json's `bin` (the bundle), resolved from the
// compiled bench in dist/bench/.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The absolute path of package.json's `bin.murmur`. */
export function murmurBin(): string {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  return join(PACKAGE_ROOT, manifest.bin.murmur!);
}
