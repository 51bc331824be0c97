// Approximate list prices, US dollars per million tokens, for a few well-known models. They drift: treat
// the cost shown as an estimate, and add a row here when you use another model.
import type { Usage } from '../types.js';
import { describedAs, type ModelProvider } from './provider.js';

export interface ModelPrice {
  input: number;
  output: number;
  /** Reading cached input; defaults to `input`. */
  cacheRead?: number;
  /** Writing the cache (Anthropic); defaults to `input`. */
  cacheWrite?: number;
}

const OPUS_4: ModelPrice = { input: 15, cacheRead: 1.5, cacheWrite: 18.75, output: 75 };
const SONNET: ModelPrice = { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 };

/** Keyed by model id; dated snapshots (`gpt-4o-2024-08-06`, `claude-haiku-4-5-20251001`) share their row. */
export const modelPrices: Record<string, ModelPrice> = {
  'gpt-5': { input: 1.25, cacheRead: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cacheRead: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cacheRead: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cacheRead: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cacheRead: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cacheRead: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cacheRead: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cacheRead: 0.075, output: 0.6 },
  o3: { input: 2, cacheRead: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cacheRead: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cacheRead: 0.275, output: 4.4 },
  'claude-opus-4': OPUS_4,
  'claude-opus-4-0': OPUS_4,
  'claude-opus-4-1': OPUS_4,
  'claude-opus-4-5': { input: 5, cacheRead: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-sonnet-4': SONNET,
  'claude-sonnet-4-0': SONNET,
  'claude-sonnet-4-5': SONNET,
  'claude-sonnet-4-6': SONNET,
  'claude-3-7-sonnet': SONNET,
  'claude-haiku-4-5': { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cacheRead: 0.08, cacheWrite: 1, output: 4 },
};

/**
 * The price row for a model id, if one is known. A router's vendor prefix (`openai/gpt-4o`) and a snapshot
 * suffix (a date, `-latest`) are ignored; anything else must match a row exactly, so `gpt-5.4-mini` is
 * "unknown" rather than priced as `gpt-5`.
 */
export function priceOf(model: string): ModelPrice | undefined {
  const name = model
    .slice(model.lastIndexOf('/') + 1)
    .toLowerCase()
    .replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/, '');
  return Object.hasOwn(modelPrices, name) ? modelPrices[name] : undefined;
}

/** US dollars for one call's usage, or undefined when the model's price is unknown. */
export function costOf(model: string, usage: Usage): number | undefined {
  const price = priceOf(model);
  return price ? costAt(price, usage) : undefined;
}

/** US dollars for one call's usage at `price`. */
export function costAt(price: ModelPrice, usage: Usage): number {
  const dollars =
    usage.input * price.input +
    usage.output * price.output +
    usage.cacheRead * (price.cacheRead ?? price.input) +
    usage.cacheWrite * (price.cacheWrite ?? price.input);
  return dollars / 1_000_000;
}

/** Prices given for models by name (murmur.toml's `[prices]`, the library's `prices`). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The price given for a model: by its whole name (`openai:my-model`), else its model id (`my-model`). */
export function givenPrice(table: PriceTable | undefined, name: string): ModelPrice | undefined {
  if (!table) return undefined;
  if (Object.hasOwn(table, name)) return table[name];
  const id = name.slice(name.indexOf(':') + 1);
  return Object.hasOwn(table, id) ? table[id] : undefined;
}

/**
 * The provider with the price given for its model: each call's usage costs that (over a list price), so a custom
 * or local model's cost is known. Without a given price, the provider as it is.
 */
export function withGivenPrice(provider: ModelProvider, table: PriceTable | undefined): ModelProvider {
  const price = givenPrice(table, provider.name);
  if (!price) return provider;
  return {
    ...describedAs(provider),
    async complete(request, signal) {
      const result = await provider.complete(request, signal);
      const usage = result.ok ? result.message.usage : undefined;
      if (usage) usage.cost = costAt(price, usage);
      return result;
    },
  };
}
