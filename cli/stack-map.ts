// Stack traces from the bundle, mapped back to source files with the source maps written beside its chunks.
// A map is read only when a stack is formatted, so start-up never reads one (--enable-source-maps would read
// them all at load time).
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// `at fn (file:///…/chunk-X.js:1:2345)` or `at /…/chunk-X.js:1:2345`.
const FRAME = /(\(|at )((?:file:\/\/)?\/[^():\s]+\.m?js):(\d+):(\d+)(\)?)$/;

const maps = new Map<string, { map: SourceMap; dir: string } | undefined>();

function mapFor(file: string): { map: SourceMap; dir: string } | undefined {
  if (!maps.has(file)) {
    try {
      const map = new SourceMap(
        JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0],
      );
      maps.set(file, { map, dir: dirname(file) });
    } catch {
      maps.set(file, undefined);
    }
  }
  return maps.get(file);
}

/** One stack line with its location pointing at the source file and line when a map sits beside its file (only
 * files inside `within`, when given). */
function mapFrame(line: string, within?: string): string {
  const match = FRAME.exec(line);
  if (!match) return line;
  const [whole, open, location, lineText, columnText, close] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const file = location.startsWith('file://') ? fileURLToPath(location) : location;
  if (within !== undefined && dirname(file) !== within) return line;
  const found = mapFor(file);
  if (!found) return line;
  const entry = found.map.findEntry(Number(lineText) - 1, Number(columnText) - 1) as {
    originalSource?: string;
    originalLine?: number;
    originalColumn?: number;
  };
  if (!entry.originalSource || entry.originalLine === undefined) return line;
  const source = entry.originalSource.startsWith('file://')
    ? fileURLToPath(entry.originalSource)
    : resolve(found.dir, entry.originalSource);
  return (
    line.slice(0, line.length - whole.length) +
    `${open}${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}${close}`
  );
}

/** The stack with every frame that has a source map beside its file pointing at the source file and line instead. */
export function mapStack(stack: string): string {
  return stack
    .split('\n')
    .map((line) => mapFrame(line))
    .join('\n');
}

/**
 * Makes every `error.stack` formatted from now on name source files: the crash report, and the failure reasons
 * that carry a stack (an agent's "internal error: …"). V8 formats a stack lazily, on its first read, so this
 * costs nothing until a stack is read.
 */
export function installStackMapping(): void {
  // Node maps stacks itself under --enable-source-maps: leave it to Node then.
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled) return;
  // Only the chunks beside this one (the bundle's folder) are looked up: a stack read in a hot moment never goes
  // probing node_modules or Node's internals for maps.
  const bundleDir = dirname(fileURLToPath(import.meta.url));
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => {
    let header: string;
    try {
      header = Error.prototype.toString.call(error);
    } catch {
      header = '<error>';
    }
    return [header, ...frames.map((frame) => mapFrame(`    at ${String(frame)}`, bundleDir))].join('\n');
  };
}
