// A typed output: the JSON Schema an agent's final answer must match (an agent profile's, a run's settings').

/** A typed output: the JSON Schema an agent's final answer must match (a TypeBox schema is one) and how often an invalid one is sent back. */
export interface OutputSpec {
  schema: Record<string, unknown>;
  /** Invalid answers sent back with the validation errors before the agent fails (default 1). */
  retries?: number;
}
