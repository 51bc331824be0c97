import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchAdapter } from '../../tools/adapters-interaction.js';
import { checkArguments, resultText } from '../../tools/contract.js';
import { buildToolRegistry } from '../../tools/registry.js';
import { createSearxngAdapter, searchEndpoint } from '../../tools/web/searxng.js';
import { createWebSearchTool, webSearchAvailable } from '../../tools/web/web-search.js';
import { makeContext, MemoryTasks, storeOf } from '../interact/context.js';

let server: Server;
let base: string;
const seen: URL[] = [];

beforeAll(async () => {
  // A fake SearXNG: /search?q=…&format=json answers like the real one; "forbidden" mimics json being disabled.
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    seen.push(url);
    if (url.pathname !== '/search' || url.searchParams.get('format') !== 'json') return void res.writeHead(404).end();
    const q = url.searchParams.get('q') ?? '';
    if (q === 'forbidden') return void res.writeHead(403).end('Forbidden');
    if (q === 'garbage') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
    if (q === 'slow') return; // never answers
    const results = Array.from({ length: 12 }, (_, i) => ({
      url: `https://example.org/${i}`,
      title: `Result ${i} for ${q}`,
      content: `Snippet   ${i}\n about ${q}`,
      engine: 'fake',
    }));
    results.splice(1, 0, { url: '', title: 'no url', content: '', engine: 'fake' });
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ query: q, number_of_results: results.length, results }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const definition = createWebSearchTool({ name: 'none', search: () => Promise.resolve([]) }).def;

async function search(adapter: SearchAdapter, input: { query: string; limit?: number }) {
  expect(checkArguments(definition, input)).toBeUndefined();
  return createWebSearchTool(adapter).impl(makeContext(), input, new AbortController().signal, () => {});
}

describe('web_search with the SearXNG adapter', () => {
  it('queries the endpoint and lists titles, URLs and snippets', async () => {
    const result = await search(createSearxngAdapter({ url: base, language: 'en' }), {
      query: 'typescript swarm',
      limit: 3,
    });
    expect(result.isError).toBeFalsy();
    const last = seen.at(-1)!;
    expect(last.pathname).toBe('/search');
    expect(last.searchParams.get('q')).toBe('typescript swarm');
    expect(last.searchParams.get('language')).toBe('en');
    expect(resultText(result)).toBe(
      [
        'Results for "typescript swarm" (searxng):',
        '1. Result 0 for typescript swarm',
        '   https://example.org/0',
        '   Snippet 0 about typescript swarm',
        '2. Result 1 for typescript swarm',
        '   https://example.org/1',
        '   Snippet 1 about typescript swarm',
        '3. Result 2 for typescript swarm',
        '   https://example.org/2',
        '   Snippet 2 about typescript swarm',
      ].join('\n'),
    );
  });

  it('uses 8 results by default and accepts a /search URL as configured', async () => {
    const result = await search(createSearxngAdapter({ url: `${base}/search` }), { query: 'defaults' });
    expect((result.details as { results: unknown[] }).results).toHaveLength(8);
    expect(searchEndpoint('http://host:8888/searx/').href).toBe('http://host:8888/searx/search');
    expect(() => searchEndpoint('ftp://host')).toThrow('must be http or https');
  });

  it('turns endpoint failures into error results with a reason', async () => {
    const adapter = createSearxngAdapter({ url: base, timeoutMs: 300 });
    const forbidden = await search(adapter, { query: 'forbidden' });
    expect(forbidden.isError).toBe(true);
    expect(resultText(forbidden)).toContain('HTTP 403 (enable the json format');
    expect(resultText(await search(adapter, { query: 'garbage' }))).toContain('did not return JSON');
    expect(resultText(await search(adapter, { query: 'slow' }))).toContain('did not answer within 300 ms');
  });

  it('is offered only when a search adapter is configured', async () => {
    const adapter = createSearxngAdapter({ url: base });
    expect(webSearchAvailable({})).toBe(false);
    expect(webSearchAvailable({ search: adapter })).toBe(true);
    // The registry makes web_search exactly when it is given a search adapter.
    const tasks = storeOf(new MemoryTasks());
    expect(buildToolRegistry({ tasks }).shared.map((t) => t.def.name)).not.toContain('web_search');
    expect(buildToolRegistry({ tasks, search: adapter }).shared.map((t) => t.def.name)).toContain('web_search');
  });

  it('refuses an empty query through the schema', () => {
    expect(checkArguments(definition, { query: '' })).toContain('/query');
    expect(checkArguments(definition, { query: 'x', limit: 50 })).toContain('/limit');
  });
});
