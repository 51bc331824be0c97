// A SearchAdapter for a SearXNG-compatible JSON endpoint (GET /search?q=…&format=json).
// The endpoint is the user's own configuration, often a local instance, so no address policy applies to it.
import type { SearchAdapter, SearchResult } from '../adapters-interaction.js';

export interface SearxngOptions {
  /** The instance's base URL (https://search.example.org) or its /search URL. */
  url: string;
  /** Per search, in milliseconds. Default 15 s. */
  timeoutMs?: number;
  /** Passed as SearXNG's `language` parameter when set (e.g. "en"). */
  language?: string;
  /** Passed as SearXNG's `categories` parameter when set (e.g. "general"). */
  categories?: string;
  /** Extra request headers (an API key of a proxy in front of the instance…). */
  headers?: Record<string, string>;
}

export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000;

/** Throws when the URL is not http(s), so a configuration mistake surfaces at start-up. */
export function searchEndpoint(base: string): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(
      `search URL ${JSON.stringify(base)} is not an absolute URL; give one such as http://localhost:8888`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`search URL ${JSON.stringify(base)} must be http or https`);
  if (!/\/search\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/search`;
  return url;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
}

export function createSearxngAdapter(options: SearxngOptions): SearchAdapter {
  const endpoint = searchEndpoint(options.url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
  return {
    name: 'searxng',
    async search(query, { signal, limit }): Promise<SearchResult[]> {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      if (options.language) url.searchParams.set('language', options.language);
      if (options.categories) url.searchParams.set('categories', options.categories);
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          signal: AbortSignal.any([signal, timeout]),
          headers: { accept: 'application/json', ...options.headers },
        });
      } catch (error) {
        if (timeout.aborted && !signal.aborted)
          throw new Error(`the search endpoint ${endpoint.origin} did not answer within ${timeoutMs} ms`);
        throw new Error(`the search endpoint ${endpoint.origin} could not be reached: ${(error as Error).message}`);
      }
      if (!response.ok) {
        // SearXNG answers 403 when the json format is not enabled in its settings.
        const hint =
          response.status === 403 ? ' (enable the json format under search.formats in SearXNG settings.yml)' : '';
        throw new Error(`the search endpoint answered HTTP ${response.status}${hint}`);
      }
      let data: unknown;
      try {
        data = await response.json();
      } catch {
        throw new Error('the search endpoint did not return JSON');
      }
      const results = (data as { results?: unknown }).results;
      if (!Array.isArray(results)) throw new Error('the search endpoint returned JSON without a "results" list');
      const out: SearchResult[] = [];
      for (const entry of results) {
        if (typeof entry !== 'object' || entry === null) continue;
        const record = entry as Record<string, unknown>;
        const link = text(record.url);
        if (!link) continue;
        out.push({ title: text(record.title) || link, url: link, snippet: text(record.content) });
        if (out.length >= limit) break;
      }
      return out;
    },
  };
}
