// What model calls cost: tokens in, out and through the prompt cache, and the price when one is known. Summed per
// turn, per agent and per run (orchestrator/types.ts keeps the arithmetic).

/** Tokens and cost: a model call's, an agent's, or a run's in all. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars, when a price is known. */
  cost?: number;
}
