// Where the ripgrep binary is: RG_PATH, then the binary shipped by @vscode/ripgrep, then `rg` on PATH.
// None found means grep uses its JavaScript fallback.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export type RipgrepSource = 'RG_PATH' | '@vscode/ripgrep' | 'PATH';

export interface RipgrepLocation {
  path: string;
  source: RipgrepSource;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The binary of @vscode/ripgrep, or undefined when the package (or its platform binary) is missing. */
export async function bundledRipgrep(): Promise<string | undefined> {
  try {
    const module = (await import('@vscode/ripgrep')) as { rgPath?: string };
    return module.rgPath && isExecutableFile(module.rgPath) ? module.rgPath : undefined;
  } catch {
    return undefined;
  }
}

function onPath(envPath: string | undefined): string | undefined {
  if (!envPath) return undefined;
  const name = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export interface DiscoveryInputs {
  env: NodeJS.ProcessEnv;
  /** Looks up the bundled binary (a seam so the order can be checked where the package is installed). */
  bundled?: () => Promise<string | undefined>;
}

/** Finds ripgrep in order: RG_PATH, @vscode/ripgrep, PATH. An RG_PATH that is not an executable file is skipped. */
export async function discoverRipgrep(inputs: DiscoveryInputs): Promise<RipgrepLocation | undefined> {
  const fromEnv = inputs.env.RG_PATH;
  if (fromEnv && isExecutableFile(fromEnv)) return { path: fromEnv, source: 'RG_PATH' };
  const bundled = await (inputs.bundled ?? bundledRipgrep)();
  if (bundled) return { path: bundled, source: '@vscode/ripgrep' };
  const found = onPath(inputs.env.PATH);
  if (found) return { path: found, source: 'PATH' };
  return undefined;
}

const cache = new Map<string, Promise<RipgrepLocation | undefined>>();

/** discoverRipgrep for this process's environment, remembered per RG_PATH and PATH. */
export function findRipgrep(env: NodeJS.ProcessEnv = process.env): Promise<RipgrepLocation | undefined> {
  const key = `${env.RG_PATH ?? ''}\0${env.PATH ?? ''}`;
  let found = cache.get(key);
  if (!found) {
    found = discoverRipgrep({ env });
    cache.set(key, found);
  }
  return found;
}
