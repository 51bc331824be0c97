// The files each package ships beside its bundle, copied from the root at build time (the root holds them once;
// packages/*/ keep only their package.json in git): the library's declarations (tsc's output for the rooms its
// public types reach), its built-in skills (found beside the nearest package.json: tools/interact/skills.ts), the
// command's demo project, and the README and LICENSE for both.
import { cpSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The rooms whose declarations the library's public types reach (api/ re-exports from them). */
const DECLARED_ROOMS = ['protocol', 'api', 'host', 'orchestrator', 'tools', 'roles', 'swarm'];

function replaceFolder(from: string, to: string, filter?: (file: string) => boolean): void {
  rmSync(to, { recursive: true, force: true });
  if (!existsSync(from)) throw new Error(`${from} is missing: the build copies it into ${to}`);
  cpSync(from, to, {
    recursive: true,
    filter: (file) => !filter || statSync(file).isDirectory() || filter(file),
  });
}

export function copyPackageFiles(root: string, packages: { library: string; command: string }): void {
  for (const room of DECLARED_ROOMS)
    replaceFolder(join(root, 'dist', room), join(packages.library, 'dist', room), (file) => file.endsWith('.d.ts'));
  replaceFolder(join(root, 'skills'), join(packages.library, 'skills'));
  replaceFolder(join(root, 'examples'), join(packages.command, 'examples'));
  for (const dir of [packages.library, packages.command])
    for (const file of ['README.md', 'LICENSE']) cpSync(join(root, file), join(dir, file));
}
