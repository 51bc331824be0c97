// Bundles the murmur command (`npm run build` after tsc): one minified ES module entry, dist/bundle/main.js, with
// a chunk per lazily loaded command and shared code, so `murmur run` reads a few files instead of hundreds
// (ES module resolution and loading were most of its start-up). Source maps are written beside the chunks; the
// crash handler maps stack frames back to source files (stack-map.ts) without paying for maps at start-up.
//
// Left outside the bundle: packages loaded only when needed that find files relative to themselves (blessed's
// terminfo, ripgrep's binary) or are large and lazily imported already (the provider SDKs, MCP, BullMQ, the web
// tools' parsers).
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLE_DIR = 'dist/bundle';

export const EXTERNAL_PACKAGES = [
  'blessed',
  '@vscode/ripgrep',
  'openai',
  '@anthropic-ai/sdk',
  '@modelcontextprotocol/sdk',
  'bullmq',
  'ioredis',
  'linkedom',
  '@mozilla/readability',
  'turndown',
  'playwright-core',
];

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
  // Chunk names carry content hashes: clear the old ones rather than let them pile up.
  rmSync(join(root, outDir), { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: join(root, 'cli/main.ts') },
    outdir: join(root, outDir),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    external: EXTERNAL_PACKAGES,
    banner: { js: BANNER },
    // write-file-atomic hashes __filename into its temporary names: any stable per-file string does.
    define: { __filename: 'import.meta.url' },
    logLevel: 'warning',
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
  buildBundle(root).catch((error: unknown) => {
    process.stderr.write(`build-bundle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
