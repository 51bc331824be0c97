// `--effort low|medium|high` per provider: which models get a knob, and what each level means. Pure rules, so
// the providers and their tests read the same table.
import type { Effort } from '../types.js';

export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high'];

/** Anthropic extended thinking: the budget_tokens of each level. */
export const THINKING_BUDGET: Readonly<Record<Effort, number>> = { low: 2048, medium: 8192, high: 24_576 };

/** Room left for the answer above the thinking budget when max_tokens must be raised. */
export const ANSWER_ROOM_TOKENS = 4096;

// The official API's reasoning models: the o-series (not o1-mini / o1-preview, which take no effort) and gpt-5.
const OPENAI_REASONING = /^(o1(?!-mini|-preview)|o3|o4|gpt-5|codex-)/;

/**
 * Whether to send `reasoning_effort` for this model. The official API gets it only for its reasoning models
 * (others answer 400). Another OpenAI-compatible server gets it for any model when the user asked: vLLM,
 * Ollama, OpenRouter, llama.cpp and others take it (or ignore it); a server that rejects it is retried once
 * without it, and the provider remembers.
 */
export function openAIAcceptsEffort(model: string, officialApi: boolean): boolean {
  if (!officialApi) return true;
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return OPENAI_REASONING.test(bare);
}

/**
 * Whether an Anthropic model takes extended thinking: Claude 3.7 and every later Claude. Claude 2, instant and
 * the other Claude 3 models do not; a foreign name (a compatible server's own model) gets it when asked, and a
 * 400 naming `thinking` turns it off for that provider.
 */
export function anthropicAcceptsThinking(model: string): boolean {
  const name = model.toLowerCase();
  if (!name.startsWith('claude-')) return true;
  return !/^claude-(instant|2|3-(?!7))/.test(name);
}

/** Claude 4 models think between tool calls only with this beta (later ones do it on their own and ignore it). */
export function interleavedThinkingBeta(model: string): string | undefined {
  return /^claude-(opus|sonnet|haiku)-4/.test(model.toLowerCase()) ? 'interleaved-thinking-2025-05-14' : undefined;
}

/** max_tokens with thinking on: above the budget, with room for the answer. */
export function maxTokensWithThinking(base: number, budget: number): number {
  return Math.max(base, budget + ANSWER_ROOM_TOKENS);
}

/** A 400 that says the server does not take the effort knob we sent (and not something else about the request). */
export function rejectsKnob(
  status: number | undefined,
  message: string,
  knob: { names: RegExp; unless?: RegExp },
): boolean {
  return status === 400 && knob.names.test(message) && !knob.unless?.test(message);
}
