// web_search: asks the SearchAdapter it is made with; offered only when one is configured (see webSearchAvailable).
import { Type } from '@sinclair/typebox';
import type { InteractionAdapters, SearchAdapter, SearchResult } from '../adapters-interaction.js';
import { defineRuntimeTool, errorResult, textResult, type RuntimeTool, type ToolTraits } from '../contract.js';

export type { SearchAdapter, SearchOptions, SearchResult } from '../adapters-interaction.js';

export const DEFAULT_SEARCH_RESULTS = 8;
export const MAX_SEARCH_RESULTS = 20;

const Parameters = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: 'What to search the web for.' }),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SEARCH_RESULTS,
        description: `Most results to return (1-${MAX_SEARCH_RESULTS}, default ${DEFAULT_SEARCH_RESULTS}).`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** True when web_search should be offered: a search adapter is configured. */
export function webSearchAvailable(adapters: InteractionAdapters): boolean {
  return adapters.search !== undefined;
}

export function renderResults(query: string, source: string, results: readonly SearchResult[]): string {
  if (results.length === 0) return `No results for ${JSON.stringify(query)} (${source}).`;
  const lines = [`Results for ${JSON.stringify(query)} (${source}):`];
  results.forEach((result, index) => {
    lines.push(`${index + 1}. ${result.title}`, `   ${result.url}`);
    if (result.snippet) lines.push(`   ${result.snippet}`);
  });
  return lines.join('\n');
}

/** web_search's traits: a read-only query. */
export const WEB_SEARCH_TRAITS = { readOnly: true } as const satisfies ToolTraits;

export function createWebSearchTool(adapter: SearchAdapter): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...WEB_SEARCH_TRAITS,
      name: 'web_search',
      description: 'Search the web. Returns titles, URLs and snippets; read a page in full with fetch_url.',
      parameters: Parameters,
      // Parallel: a read-only query.
      executionMode: 'parallel',
    },
    execute: async (_ctx, input, signal) => {
      const query = input.query.trim();
      if (query === '') return errorResult(`query ${JSON.stringify(input.query)} is blank; say what to search for.`);
      try {
        const results = await adapter.search(query, { signal, limit: input.limit ?? DEFAULT_SEARCH_RESULTS });
        return textResult(renderResults(query, adapter.name, results), { results });
      } catch (error) {
        return errorResult(`web_search failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  });
}
