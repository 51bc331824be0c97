// Typed outputs on a host's engine (the Run records the output with the session's settings, so a resume answers
// with the same schema, and loads its checker before the run): a run's answer is read back from its main agent, and a
// swarm's rows get the library's object items back as `input`.
import type { Engine, RunOutcome } from '../orchestrator/engine.js';
import { finalAnswerOf } from '../orchestrator/final-answer.js';
import { jsonSchemaProblem, loadJsonSchemaValidators } from '../tools/mcp/json-schema.js';
import { mapResults, type ItemResult, type ItemResults } from '../swarm/report.js';

export type { OutputSpec } from '../orchestrator/final-answer.js';
/** Loads the checker of typed outputs: awaited before a run whose agents answer with one. */
export { loadOutputChecks } from '../orchestrator/final-answer.js';

/** What is wrong with an output schema (ajv cannot compile it), or undefined. */
export async function outputSchemaProblem(schema: unknown): Promise<string | undefined> {
  await loadJsonSchemaValidators();
  return jsonSchemaProblem(schema);
}

/** The run's outcome with its main agent's final answer, when it answered with a typed output. */
export function withRunOutput(engine: Engine, outcome: RunOutcome): RunOutcome {
  const main = engine.agentTree.get('main');
  if (!main?.profile.output || outcome.status !== 'completed') return outcome;
  const answer = finalAnswerOf(main.agent.state.messages);
  return answer ? { ...outcome, output: answer.value } : outcome;
}

/** Each row with its item as the library was given it (saved with the swarm). */
export function withInputs(results: ItemResults, inputs: readonly unknown[] | undefined): ItemResults {
  return inputs ? mapResults(results, (row) => withInput(row, inputs)) : results;
}

/** One row with its item as the library was given it. */
export function withInput(row: ItemResult, inputs: readonly unknown[] | undefined): ItemResult {
  return inputs ? { ...row, input: inputs[row.index] } : row;
}
