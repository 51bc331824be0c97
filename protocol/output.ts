// A typed output: the JSON Schema an agent's final answer must match (an agent profile's, a run's settings').

/** What a schema library's check said of an answer: the value it made, or its issues in one line. */
export type SchemaCheck = { ok: true; value: unknown } | { ok: false; problem: string };

/** A typed output: the JSON Schema an agent's final answer must match (a TypeBox schema is one) and how often an invalid one is sent back. */
export interface OutputSpec {
  schema: Record<string, unknown>;
  /** Invalid answers sent back with the validation errors before the agent fails (default 1). */
  retries?: number;
  /**
   * The schema library's own check of an answer that passed the JSON Schema (a Standard Schema's validate: its
   * refinements and transforms); the answer kept is the value it returns. Not saved: a resume checks the JSON Schema.
   */
  check?: (value: unknown) => SchemaCheck | Promise<SchemaCheck>;
}
