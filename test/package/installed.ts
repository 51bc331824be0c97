// The packages as a user gets them: `npm pack` of the library (packages/murmur-agents) and of the command
// (packages/cli), the command installed globally into a temporary prefix (`npm install -g --prefix …
// --prefer-offline`, from the cache `npm ci` filled), with that prefix's `bin` first on PATH and nothing of the
// checkout on it. The command depends on the library by version; as the registry would, the library's packed
// tarball answers that dependency (the command's manifest is packed with `file:` to it). One pack and one install serve every suite of a test run: the first
// suite to get here builds it under a lock folder, the others wait for its `ready` mark. The folder is named by a
// hash of package.json and the bundle's file names (which carry content hashes), so a new build installs anew.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { COMMAND_DIR, LIBRARY_DIR, PACKAGE, ROOT } from '../murmur-bin.js';

export interface InstalledPackage {
  /** The install prefix: `bin/murmur` and `lib/node_modules/@murmur-agents/cli`. */
  prefix: string;
  /** The installed `murmur` command. */
  bin: string;
  /** The installed command package's folder. */
  dir: string;
  /** The library's folder inside the command's install. */
  libraryDir: string;
  /** The packed library (`murmur-agents`). */
  libraryTarball: string;
  /** The packed command (`@murmur-agents/cli`). */
  commandTarball: string;
  /** The tarballs' sizes in bytes. */
  libraryBytes: number;
  commandBytes: number;
}

const PARENT = path.join(tmpdir(), 'murmur-installed-package');
const WAIT_MS = 180_000;

// One checkout's installs are its own: another checkout testing at the same time (or a clone in CI) never
// removes them. The build part tells this checkout's builds apart.
const CHECKOUT = createHash('sha256').update(ROOT).digest('hex').slice(0, 8);
// An older build's install is removed only when nothing has used it for this long (a suite may still run on it).
const STALE_MS = 30 * 60_000;

function buildKey(): string {
  const hash = createHash('sha256');
  for (const dir of [LIBRARY_DIR, COMMAND_DIR]) {
    hash.update(readFileSync(path.join(dir, 'package.json')));
    hash.update(
      readdirSync(path.join(dir, 'dist', 'bundle'))
        .sort()
        .join('\n'),
    );
  }
  return `${CHECKOUT}-${hash.digest('hex').slice(0, 16)}`;
}

/** `npm pack` of `packageDir` into `into`; the tarball's path. */
function pack(packageDir: string, into: string): string {
  // --ignore-scripts: the bundles are what `npm run build` just made (npm test builds first).
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], {
      cwd: packageDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as { filename: string }[];
  return path.join(into, packed[0]!.filename);
}

function install(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const libraryTarball = pack(LIBRARY_DIR, dir);
  // The command as published, but with its `murmur-agents` dependency answered by the tarball above.
  const staged = path.join(dir, 'command-package');
  cpSync(COMMAND_DIR, staged, { recursive: true, dereference: true, filter: (file) => !file.includes('node_modules') });
  const manifestFile = path.join(staged, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { dependencies: Record<string, string> };
  manifest.dependencies['murmur-agents'] = `file:${libraryTarball}`;
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  const commandTarball = pack(staged, dir);
  rmSync(staged, { recursive: true, force: true });
  const prefix = path.join(dir, 'prefix');
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel',
      'error',
      commandTarball,
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    },
  );
  writeFileSync(path.join(dir, 'ready'), JSON.stringify({ libraryTarball, commandTarball }));
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The installed package of the current build (packed and installed once per build). */
export function installedPackage(): InstalledPackage {
  const key = buildKey();
  const dir = path.join(PARENT, key);
  const lock = `${dir}.lock`;
  mkdirSync(PARENT, { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(path.join(dir, 'ready'))) {
    let mine = false;
    try {
      mkdirSync(lock);
      mine = true;
    } catch {
      // Another suite installs; a lock left by a killed run (older than the wait) is taken over.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > WAIT_MS)
        rmSync(lock, { recursive: true, force: true });
    }
    if (mine) {
      try {
        if (!existsSync(path.join(dir, 'ready'))) {
          rmSync(dir, { recursive: true, force: true });
          // This checkout's older installs go once unused (each is a full node_modules).
          for (const old of readdirSync(PARENT)) {
            const folder = path.join(PARENT, old);
            if (
              old.startsWith(`${CHECKOUT}-`) &&
              !old.startsWith(key) &&
              Date.now() - statSync(folder).mtimeMs > STALE_MS
            )
              rmSync(folder, { recursive: true, force: true });
          }
          install(dir);
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for another suite to install the package into ${dir}`);
    sleep(250);
  }
  const { libraryTarball, commandTarball } = JSON.parse(readFileSync(path.join(dir, 'ready'), 'utf8')) as {
    libraryTarball: string;
    commandTarball: string;
  };
  // Marks it in use, so a later build of this checkout leaves it alone for a while.
  const now = new Date();
  utimesSync(dir, now, now);
  const prefix = path.join(dir, 'prefix');
  const commandDir = path.join(prefix, 'lib', 'node_modules', PACKAGE.name);
  return {
    prefix,
    bin: path.join(prefix, 'bin', 'murmur'),
    dir: commandDir,
    libraryDir: path.join(commandDir, 'node_modules', 'murmur-agents'),
    libraryTarball,
    commandTarball,
    libraryBytes: statSync(libraryTarball).size,
    commandBytes: statSync(commandTarball).size,
  };
}

/**
 * The environment of a user's shell with the package installed: the prefix's bin first on PATH and no folder of
 * this checkout on it (npm test puts node_modules/.bin there), no model settings from the developer's machine,
 * HOME in `home`.
 */
export function userEnv(
  pkg: InstalledPackage,
  home: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /_API_KEY$|_BASE_URL$|^MURMUR_|^OLLAMA_|^npm_|^NODE_PATH$|^VITEST/.test(key)) continue;
    env[key] = value;
  }
  const path_ = (process.env.PATH ?? '').split(':').filter((entry) => entry && !entry.startsWith(ROOT));
  return { ...env, PATH: [path.join(pkg.prefix, 'bin'), ...path_].join(':'), HOME: home, NO_COLOR: '1', ...extra };
}
