// Bundles what the package ships (`npm run build` after tsc): the murmur command, one minified ES module entry,
// dist/bundle/main.js, with a chunk per lazily loaded command and shared code, so `murmur run` reads a few files
// instead of hundreds (ES module resolution and loading were most of its start-up); and the library's three entry
// points (lib-index.js, lib-testing.js, lib-tools.js) sharing those chunks, so the package holds each module once
// (the tsc output in dist/ supplies only the .d.ts files it ships). Source maps are written beside the chunks; the
// crash handler maps stack frames back to source files (stack-map.ts) without paying for maps at start-up.
//
// Every runtime dependency stays outside the bundle (the installed package has it in node_modules anyway, so
// inlining it would ship it twice and load it in a form its authors never tested: ajv's named exports, for one,
// vanished inside the bundle) except the few a `murmur run` loads at start-up or on its first tool call, where
// resolving and reading their many files from node_modules cost more than the rest of the start-up: measured with
// the startup benchmark, everything external made a one-turn run 6.9x `node -e 0`, these inlined 3.1x (TypeBox
// alone is ~800 module resolutions, execa ~260). Those a one-turn run does not use (execa, tinyglobby, croner,
// yaml) are imported dynamically where first needed, so each sits in a chunk of its own that such a run never reads.
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLE_DIR = 'dist/bundle';

export const INLINED_FOR_STARTUP = [
  '@sinclair/typebox',
  'execa',
  'yaml',
  'p-queue',
  'eventemitter3',
  'write-file-atomic',
  'ignore',
  'tinyglobby',
  'croner',
];

/** The files package.json's `bin` names, absolute: they must come out executable (mode 0755), or `npx murmur`
 * in a checkout says "Permission denied" (the temp-file-and-rename below makes every file anew, at 0644). */
export function binFiles(root: string): Set<string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  return new Set(bins.map((file) => resolve(root, file)));
}

/** The package's runtime dependencies that the bundle imports from node_modules (all but the inlined ones). */
export function externalPackages(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const runtime = Object.keys(manifest.dependencies ?? {});
  const missing = INLINED_FOR_STARTUP.filter((name) => !runtime.includes(name));
  if (missing.length > 0)
    throw new Error(
      `INLINED_FOR_STARTUP names ${missing.join(', ')}, which package.json does not list as dependencies`,
    );
  return runtime.filter((name) => !INLINED_FOR_STARTUP.includes(name));
}

// CommonJS packages inside an ES module bundle still call require() (for Node's own modules) and one reads
// __filename. Each chunk gets this banner, so it stays lazy: making a require function per chunk at load time
// cost more than anything else in a one-turn run.
const BANNER = [
  "import { createRequire as __murmurCreateRequire } from 'node:module';",
  'let __murmurRequire;',
  'const require = (id) => (__murmurRequire ??= __murmurCreateRequire(import.meta.url))(id);',
].join(' ');

/** Builds the bundle under `root/outDir` (default dist/bundle). The chunks sit two folders below the root, as
 * dist/cli/*.js do, so paths such as `../../package.json` resolve alike from both builds. */
export async function buildBundle(root: string, outDir = BUNDLE_DIR): Promise<void> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: {
      main: join(root, 'cli/main.ts'),
      'lib-index': join(root, 'api/index.ts'),
      'lib-testing': join(root, 'api/testing.ts'),
      'lib-tools': join(root, 'api/tools.ts'),
    },
    outdir: join(root, outDir),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    external: externalPackages(root),
    banner: { js: BANNER },
    // write-file-atomic hashes __filename into its temporary names: any stable per-file string does.
    define: { __filename: 'import.meta.url' },
    logLevel: 'warning',
    write: false,
  });
  replaceOutputs(join(root, outDir), result.outputFiles, binFiles(root));
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
  return /^(main|lib-[a-z]+)\.js(\.map)?$/.test(basename(file));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
  buildBundle(root).catch((error: unknown) => {
    process.stderr.write(`build-bundle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
