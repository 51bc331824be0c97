// How the command's bundle imports the modules the library holds (cli/build-bundle.ts): never a copy, always from
// `murmur-agents/internal/…`, grouped so that loading the command reads about as many files as one bundle did.
// - A static import goes to its room's barrel (`internal/host`, `internal/orchestrator`, …): one library entry per
//   room re-exporting, by name, every module of that room the command imports. The library is then split at a
//   handful of entries (each entry point multiplies esbuild's shared chunks: one per module made a one-turn run
//   read 92 files instead of 56), and what the rooms load lazily stays lazy (a one-turn run reads no swarm or
//   scheduler code).
// - A lazy `import()` of a library module goes to that module's own entry (`internal/host.models`), loaded when
//   called.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Metafile, Plugin } from 'esbuild';

/** What the command imports of the library: per room, the modules it imports statically; those it loads lazily. */
export interface LibraryImports {
  rooms: Map<string, Set<string>>;
  lazy: Set<string>;
}

export function emptyImports(): LibraryImports {
  return { rooms: new Map(), lazy: new Set() };
}

/** The library entry (and `murmur-agents/internal/…` name) of one module imported lazily: `host/retry.ts` → `host.retry`. */
export function moduleEntryName(sourceFile: string): string {
  return sourceFile.replace(/\.ts$/, '').replaceAll('/', '.');
}

/** The barrel of a library module's room: `host/run.ts` → `host`. */
function roomOf(sourceFile: string): string {
  return sourceFile.split('/')[0]!;
}

/** Rewrites the command's imports of library modules to `murmur-agents/internal/…` (external) and records them. */
export function libraryImportsPlugin(root: string, library: ReadonlySet<string>, seen: LibraryImports): Plugin {
  return {
    name: 'library-imports',
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData === 'resolving') return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'resolving',
        });
        if (found.errors.length > 0) return { errors: found.errors };
        const source = relative(root, found.path);
        if (!library.has(source)) return { path: found.path };
        if (args.kind === 'dynamic-import') {
          seen.lazy.add(source);
          return { path: `murmur-agents/internal/${moduleEntryName(source)}`, external: true };
        }
        const room = roomOf(source);
        let modules = seen.rooms.get(room);
        if (!modules) seen.rooms.set(room, (modules = new Set()));
        modules.add(source);
        return { path: `murmur-agents/internal/${room}`, external: true };
      });
    },
  };
}

/** Each module's export names, from a build with every module as an entry point (its metafile). */
export function exportsOf(metafile: Metafile): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const facts of Object.values(metafile.outputs)) if (facts.entryPoint) found.set(facts.entryPoint, facts.exports);
  return found;
}

/**
 * Where `name` exported by `module` is declared, following `export { … } from` and `export * from` (host/ re-exports
 * what the rooms below give the front ends, so one binding is often exported by two modules of one barrel).
 */
function declarationOf(root: string, module: string, name: string, depth = 0): string {
  const source = readFileSync(join(root, module), 'utf8');
  const from = (specifier: string) =>
    relative(root, resolve(dirname(join(root, module)), specifier)).replace(/\.js$/, '.ts');
  for (const match of source.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    for (const part of match[1]!.split(',')) {
      const [original, alias] = part.trim().split(/\s+as\s+/);
      if ((alias ?? original) === name && depth < 8) return declarationOf(root, from(match[2]!), original!, depth + 1);
    }
  }
  const declared = new RegExp(
    `export\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|const|let|var|class|enum)\\s+${name}\\b`,
  );
  if (!declared.test(source))
    for (const match of source.matchAll(/export\s*\*\s*from\s*'([^']+)'/g))
      if (depth < 8) return declarationOf(root, from(match[1]!), name, depth + 1);
  return `${module}#${name}`;
}

/**
 * A barrel's source: `export { names } from 'module'` per module. A name two modules of one barrel export is
 * taken once when both are the same declaration (a re-export), and is a build error naming both otherwise (a star
 * re-export would drop it silently, and the command would fail when it loads).
 */
export function barrelSource(root: string, modules: readonly string[], exports: ReadonlyMap<string, string[]>): string {
  const owner = new Map<string, string>();
  const lines: string[] = [];
  for (const module of modules) {
    const names = exports.get(module);
    if (!names) throw new Error(`build: no exports known for ${module}`);
    const own: string[] = [];
    for (const name of names) {
      const other = owner.get(name);
      if (other === undefined) {
        owner.set(name, module);
        own.push(name);
      } else if (declarationOf(root, other, name) !== declarationOf(root, module, name))
        throw new Error(
          `build: ${other} and ${module} both export "${name}", and the command's bundle imports both through one barrel: rename one`,
        );
    }
    if (own.length > 0) lines.push(`export { ${own.join(', ')} } from ${JSON.stringify(join(root, module))};`);
  }
  return lines.join('\n');
}

/** Serves `murmur-barrel:NAME` as the barrel's source. */
export function barrelPlugin(root: string, sources: ReadonlyMap<string, string>): Plugin {
  return {
    name: 'library-barrels',
    setup(build) {
      build.onResolve({ filter: /^murmur-barrel:/ }, (args) => ({ path: args.path, namespace: 'murmur-barrel' }));
      build.onLoad({ filter: /.*/, namespace: 'murmur-barrel' }, (args) => ({
        contents: sources.get(args.path.slice('murmur-barrel:'.length))!,
        loader: 'ts',
        resolveDir: root,
      }));
    },
  };
}
