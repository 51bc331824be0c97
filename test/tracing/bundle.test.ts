// Where OpenTelemetry sits in the bundles (packages/*/dist/bundle, built by cli/build-bundle.ts): the library loads only the
// API, never the SDK or the exporter, whichever of its chunks run; the command loads nothing of OpenTelemetry at
// start-up, and the SDK only through the chunk it imports when an OTLP endpoint is configured.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_DIR, LIBRARY_DIR } from '../murmur-bin.js';

// The library's bundle, and the command's, which imports the library's modules from `murmur-agents/internal/…`.
const LIBRARY = path.join(LIBRARY_DIR, 'dist/bundle');
const COMMAND = path.join(COMMAND_DIR, 'dist/bundle');
const SDK = /@opentelemetry\/(sdk-trace-base|exporter-trace-otlp-http)/;

function source(file: string): string {
  return readFileSync(file, 'utf8');
}

/** The chunks `entry` loads (absolute paths): its static imports, transitively, and with `dynamic` its lazy imports too. */
function closure(entry: string, dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = source(file);
    const dir = path.dirname(file);
    const statics = /(?:from|import)\s*"(\.\/[^"]+\.js|murmur-agents\/internal\/[^"]+)"/g;
    const found = [...text.matchAll(statics)].map((m) => m[1]!);
    if (dynamic)
      found.push(
        ...[...text.matchAll(/import\(\s*"(\.\/[^"]+\.js|murmur-agents\/internal\/[^"]+)"\s*\)/g)].map((m) => m[1]!),
      );
    for (const next of found)
      visit(
        next.startsWith('./')
          ? path.join(dir, next)
          : path.join(LIBRARY, `internal.${next.slice('murmur-agents/internal/'.length)}.js`),
      );
  };
  visit(entry);
  return seen;
}

describe('OpenTelemetry in the bundle', () => {
  it('the library reaches the API only, even through its lazy chunks', () => {
    const chunks = closure(path.join(LIBRARY, 'lib-index.js'), true);
    expect([...chunks].some((c) => path.basename(c).startsWith('recorder-'))).toBe(true);
    for (const chunk of chunks) expect(source(chunk), chunk).not.toMatch(SDK);
    expect(source(path.join(LIBRARY, 'lib-index.js'))).toMatch(/from\s*"@opentelemetry\/api"/);
  });

  it('the command loads no OpenTelemetry at start-up; the SDK sits in a chunk it imports lazily', () => {
    expect(closure(path.join(COMMAND, 'main.js'), false).size).toBeGreaterThan(1);
    for (const chunk of closure(path.join(COMMAND, 'main.js'), false))
      expect(source(chunk), chunk).not.toMatch(/@opentelemetry\//);
    const lazy = [...closure(path.join(COMMAND, 'main.js'), true)].filter((chunk) => SDK.test(source(chunk)));
    expect(lazy.map((chunk) => path.basename(chunk).replace(/-[A-Z0-9]+\.js$/, ''))).toEqual(['telemetry-sdk']);
  });
});
