// Ranking of deferred tools for tool_search: BM25 over each tool's name (weighted most), server, description and
// parameter names, with light stemming, prefix matches for longer words, and exact-name hits first.
import type { RuntimeTool } from '../contract.js';
import { mcpToolOrigin } from './names.js';

export interface SearchHit {
  tool: RuntimeTool;
  score: number;
}

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'to',
  'of',
  'for',
  'in',
  'on',
  'and',
  'or',
  'with',
  'from',
  'by',
  'is',
  'it',
  'me',
  'my',
  'i',
  'tool',
  'tools',
  'mcp',
]);

function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('es') && /(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Words of a name or a sentence: split on non-alphanumerics and camelCase, lower-cased, stemmed. */
export function searchTerms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .map(stem);
}

interface Document {
  tool: RuntimeTool;
  /** Weighted term frequencies. */
  terms: Map<string, number>;
  length: number;
  names: string[];
}

const FIELD_WEIGHTS = { name: 3, server: 1.5, description: 1, parameters: 0.75 };

function addTerms(terms: Map<string, number>, words: string[], weight: number): number {
  for (const word of words) terms.set(word, (terms.get(word) ?? 0) + weight);
  return words.length * weight;
}

function parameterNames(schema: unknown): string {
  const properties = (schema as { properties?: Record<string, { description?: unknown }> } | null)?.properties;
  if (!properties || typeof properties !== 'object') return '';
  return Object.entries(properties)
    .map(([key, value]) => `${key} ${typeof value?.description === 'string' ? value.description : ''}`)
    .join(' ');
}

export class ToolSearchIndex {
  private readonly documents: Document[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(tools: readonly RuntimeTool[]) {
    this.documents = tools.map((tool) => {
      const origin = mcpToolOrigin(tool);
      const terms = new Map<string, number>();
      let length = addTerms(terms, searchTerms(origin?.tool ?? tool.def.name), FIELD_WEIGHTS.name);
      if (origin) length += addTerms(terms, searchTerms(origin.server), FIELD_WEIGHTS.server);
      length += addTerms(terms, searchTerms(tool.def.description), FIELD_WEIGHTS.description);
      length += addTerms(terms, searchTerms(parameterNames(tool.def.parameters)), FIELD_WEIGHTS.parameters);
      const names = [tool.def.name.toLowerCase()];
      if (origin) names.push(origin.tool.toLowerCase());
      return { tool, terms, length, names };
    });
    for (const document of this.documents)
      for (const term of document.terms.keys())
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
    this.averageLength = this.documents.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.documents.length);
  }

  get size(): number {
    return this.documents.length;
  }

  private idf(term: string): number {
    const n = this.documents.length;
    const df = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Terms of the index that a query word stands for: itself, and for words of 3+ letters the terms it begins. */
  private expand(word: string): { term: string; weight: number }[] {
    const out: { term: string; weight: number }[] = [];
    if (this.documentFrequency.has(word)) out.push({ term: word, weight: 1 });
    if (word.length >= 3) {
      for (const term of this.documentFrequency.keys())
        if (term !== word && term.startsWith(word)) out.push({ term, weight: 0.5 });
    }
    return out;
  }

  search(query: string, limit: number): SearchHit[] {
    const wanted = query.trim().toLowerCase();
    const words = [...new Set(searchTerms(query))];
    const k1 = 1.2;
    const b = 0.75;
    const hits: SearchHit[] = [];
    for (const document of this.documents) {
      let score = document.names.includes(wanted) ? 1_000 : 0;
      for (const word of words) {
        let best = 0;
        for (const { term, weight } of this.expand(word)) {
          const tf = document.terms.get(term) ?? 0;
          if (tf === 0) continue;
          const norm = tf + k1 * (1 - b + (b * document.length) / Math.max(1, this.averageLength));
          best = Math.max(best, weight * this.idf(term) * ((tf * (k1 + 1)) / norm));
        }
        score += best;
      }
      if (score > 0) hits.push({ tool: document.tool, score });
    }
    hits.sort((x, y) => y.score - x.score || x.tool.def.name.localeCompare(y.tool.def.name));
    return hits.slice(0, limit);
  }
}
