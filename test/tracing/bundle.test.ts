// Where OpenTelemetry sits in the bundle (dist/bundle, built by cli/build-bundle.ts): the library loads only the
// API, never the SDK or the exporter, whichever of its chunks run; the command loads nothing of OpenTelemetry at
// start-up, and the SDK only through the chunk it imports when an OTLP endpoint is configured.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../murmur-bin.js';

const BUNDLE = path.join(ROOT, 'dist/bundle');
const SDK = /@opentelemetry\/(sdk-trace-base|exporter-trace-otlp-http)/;

function source(file: string): string {
  return readFileSync(path.join(BUNDLE, file), 'utf8');
}

/** The chunks `entry` loads: its static imports, transitively, and with `dynamic` its lazy imports too. */
function closure(entry: string, dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = source(file);
    const found = [...text.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)].map((m) => m[1]!);
    if (dynamic) found.push(...[...text.matchAll(/import\(\s*"\.\/([^"]+\.js)"\s*\)/g)].map((m) => m[1]!));
    for (const next of found) visit(next);
  };
  visit(entry);
  return seen;
}

describe('OpenTelemetry in the bundle', () => {
  it('the library reaches the API only, even through its lazy chunks', () => {
    const chunks = closure('lib-index.js', true);
    expect([...chunks].some((c) => c.startsWith('recorder-'))).toBe(true);
    for (const chunk of chunks) expect(source(chunk), chunk).not.toMatch(SDK);
    expect(source('lib-index.js')).toMatch(/from\s*"@opentelemetry\/api"/);
  });

  it('the command loads no OpenTelemetry at start-up; the SDK sits in a chunk it imports lazily', () => {
    expect(closure('main.js', false).size).toBeGreaterThan(1);
    for (const chunk of closure('main.js', false)) expect(source(chunk), chunk).not.toMatch(/@opentelemetry\//);
    const lazy = [...closure('main.js', true)].filter((chunk) => SDK.test(source(chunk)));
    expect(lazy.map((chunk) => chunk.replace(/-[A-Z0-9]+\.js$/, ''))).toEqual(['telemetry-sdk']);
  });
});
