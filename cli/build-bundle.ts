// Bundles the two packages the repository ships (`npm run build` after tsc), each from the sources at the root:
// - the library, packages/murmur-agents: its three entry points (lib-index.js, lib-testing.js, lib-tools.js) and one
//   `internal.*.js` entry per library module the command imports, sharing chunks;
// - the command, packages/cli: dist/bundle/main.js with a chunk per lazily loaded command. A module the library
//   holds is never bundled twice: the command imports it from `murmur-agents/internal/…` (one copy, one state),
//   so the command package depends on the library and adds only the CLI, dashboard, console, scheduler service
//   and OpenTelemetry SDK.
// One minified ES module graph per package means `murmur run` reads a few files instead of hundreds (ES module
// resolution and loading were most of its start-up). Source maps are written beside the chunks; the crash handler
// maps stack frames back to source files (stack-map.ts) without paying for maps at start-up.
//
// A package's runtime dependencies (and optional peers) stay outside its bundle, except the few a `murmur run`
// loads at start-up or on its first tool call (INLINED_FOR_STARTUP), where resolving and reading their many files
// from node_modules cost more than the rest of the start-up: everything external made a one-turn run 6.9x
// `node -e 0`, these inlined 3.1x (TypeBox alone is ~800 module resolutions, execa ~260). Any other package a
// bundle reaches is a build error naming it: a dependency the manifest forgot would otherwise be bundled silently.
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import {
  barrelPlugin,
  barrelSource,
  emptyImports,
  exportsOf,
  libraryImportsPlugin,
  moduleEntryName,
} from './library-imports.js';
import { copyPackageFiles } from './package-files.js';

/** Where each package's bundle sits inside it (two folders below the package, as dist/cli/*.js sit below the root). */
export const BUNDLE_DIR = 'dist/bundle';
export const LIBRARY_PACKAGE = 'packages/murmur-agents';
export const COMMAND_PACKAGE = 'packages/cli';

export const INLINED_FOR_STARTUP = [
  '@sinclair/typebox',
  'execa',
  'p-queue',
  'eventemitter3',
  'write-file-atomic',
  'ignore',
  'tinyglobby',
  'croner',
];

const LIBRARY_ENTRIES = { 'lib-index': 'api/index.ts', 'lib-testing': 'api/testing.ts', 'lib-tools': 'api/tools.ts' };

interface Manifest {
  name: string;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function manifestOf(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** The files a package.json's `bin` names, absolute: they must come out executable (mode 0755). */
export function binFiles(packageDir: string): Set<string> {
  const bin = manifestOf(packageDir).bin;
  const bins = typeof bin === 'string' ? [bin] : Object.values(bin ?? {});
  return new Set(bins.map((file) => resolve(packageDir, file)));
}

/** The packages a package's bundle imports from node_modules: its dependencies and peers. */
export function externalPackages(packageDir: string): string[] {
  const manifest = manifestOf(packageDir);
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Bare imports: external when the package declares them, bundled when inlined, a build error otherwise. */
function dependencyGuard(label: string, external: readonly string[]): Plugin {
  return {
    name: 'dependency-guard',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || builtinModules.includes(args.path))
          return { path: args.path, external: true };
        // An inlined package's own imports are bundled with it.
        if (args.importer.includes('/node_modules/')) return undefined;
        const name = packageName(args.path);
        // Inlined even when the package lists it (the library lists TypeBox for its declarations' sake).
        if (INLINED_FOR_STARTUP.includes(name)) return undefined;
        if (external.includes(name)) return { path: args.path, external: true };
        return {
          errors: [
            {
              text: `${args.importer} imports ${args.path}, which ${label}'s package.json does not list as a dependency (or peer) and the build does not inline`,
            },
          ],
        };
      });
    },
  };
}

// CommonJS packages inside an ES module bundle still call require() (for Node's own modules) and one reads
// __filename. Each chunk gets this banner, so it stays lazy: making a require function per chunk at load time
// cost more than anything else in a one-turn run.
const BANNER = [
  "import { createRequire as __murmurCreateRequire } from 'node:module';",
  'let __murmurRequire;',
  'const require = (id) => (__murmurRequire ??= __murmurCreateRequire(import.meta.url))(id);',
].join(' ');

const COMMON = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  banner: { js: BANNER },
  // write-file-atomic hashes __filename into its temporary names: any stable per-file string does.
  define: { __filename: 'import.meta.url' },
  logLevel: 'warning',
  write: false,
} as const;

/** Builds both packages' bundles, then puts each package's other files (types, skills, examples…) in place. */
export async function buildBundle(root: string): Promise<void> {
  const esbuild = await import('esbuild');
  const libraryDir = join(root, LIBRARY_PACKAGE);
  const commandDir = join(root, COMMAND_PACKAGE);
  const apiEntries = Object.fromEntries(
    Object.entries(LIBRARY_ENTRIES).map(([name, file]) => [name, join(root, file)]),
  );
  const libraryOptions = {
    ...COMMON,
    absWorkingDir: root,
    outdir: join(libraryDir, BUNDLE_DIR),
    plugins: [dependencyGuard(LIBRARY_PACKAGE, externalPackages(libraryDir))],
  };
  // 1. Which modules the library holds.
  const probe = await esbuild.build({ ...libraryOptions, entryPoints: apiEntries, metafile: true });
  const library = new Set(Object.keys(probe.metafile.inputs).filter((file) => file.endsWith('.ts')));
  // 2. The command, importing those from the library (cli/library-imports.ts).
  const imports = emptyImports();
  const command = await esbuild.build({
    ...COMMON,
    absWorkingDir: root,
    entryPoints: { main: join(root, 'cli/main.ts') },
    outdir: join(commandDir, BUNDLE_DIR),
    plugins: [
      libraryImportsPlugin(root, library, imports),
      dependencyGuard(COMMAND_PACKAGE, externalPackages(commandDir)),
    ],
  });
  // 3. The library: its three entries, a barrel per room the command imports, an entry per module it loads lazily.
  const barrelModules = [...imports.rooms.values()].flatMap((modules) => [...modules]);
  const named = await esbuild.build({
    ...libraryOptions,
    entryPoints: Object.fromEntries(barrelModules.map((file) => [moduleEntryName(file), join(root, file)])),
    metafile: true,
  });
  const exports = exportsOf(named.metafile);
  const sources = new Map(
    [...imports.rooms].map(([room, modules]) => [room, barrelSource(root, [...modules].sort(), exports)]),
  );
  const libraryBuild = await esbuild.build({
    ...libraryOptions,
    entryPoints: {
      ...apiEntries,
      ...Object.fromEntries([...sources.keys()].map((room) => [`internal.${room}`, `murmur-barrel:${room}`])),
      ...Object.fromEntries(
        [...imports.lazy].sort().map((file) => [`internal.${moduleEntryName(file)}`, join(root, file)]),
      ),
    },
    plugins: [barrelPlugin(root, sources), ...libraryOptions.plugins],
  });
  replaceOutputs(join(libraryDir, BUNDLE_DIR), libraryBuild.outputFiles, binFiles(libraryDir));
  replaceOutputs(join(commandDir, BUNDLE_DIR), command.outputFiles, binFiles(commandDir));
  copyPackageFiles(root, { library: libraryDir, command: commandDir });
}

/**
 * Puts the new files in place one atomic rename each, then removes what the build no longer makes (chunk names
 * carry content hashes, so old ones would pile up). A `murmur` started during a rebuild finds a whole main.js and
 * the chunks it names, never an empty folder. The files package.json's `bin` names are made executable.
 */
function replaceOutputs(
  dir: string,
  files: readonly { path: string; contents: Uint8Array }[],
  executables: ReadonlySet<string>,
): void {
  mkdirSync(dir, { recursive: true });
  const made = new Set(files.map((file) => basename(file.path)));
  // Chunks first, entry points last: an entry point never names a chunk that is not there yet.
  const entryFirst = [...files].sort((a, b) => Number(isEntry(a.path)) - Number(isEntry(b.path)));
  for (const file of entryFirst) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    // Before the rename, so the bin is never in place without its exec bits.
    if (executables.has(resolve(file.path))) chmodSync(temporary, 0o755);
    renameSync(temporary, file.path);
  }
  for (const name of readdirSync(dir)) if (!made.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
}

function isEntry(file: string): boolean {
  return /^(main|lib-[a-z]+|internal\..+)\.js(\.map)?$/.test(basename(file));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
  buildBundle(root).catch((error: unknown) => {
    process.stderr.write(`build-bundle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
