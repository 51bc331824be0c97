// Typed outputs: an agent whose profile has an `output` answers through the `final_answer` tool, whose parameters
// are the output's JSON Schema (a tool call is what every provider can do). The tool checks the arguments with
// ajv (the checker of MCP tools); an invalid answer comes back to the model as the call's error, naming the path
// and the rule. The loop asks a judge after each answer: a valid final answer ends the agent; an invalid one (or
// text without the call) is sent back, `retries` times, then the agent fails with the errors as its reason.
import { FINAL_ANSWER_TRAITS } from '../tools/builtin-traits.js';
import type { TSchema } from '@sinclair/typebox';
import { resultText, type RuntimeTool, type ToolResult } from '../tools/contract.js';
import type { LoopTools } from '../tools/loop-tools.js';
import { toolSchema } from '../tools/loop-tools.js';
import { loadJsonSchemaValidators, type ArgumentValidator } from '../tools/mcp/json-schema.js';
import type { OutputSpec } from '../roles/profile.js';
import type { SchemaCheck } from '../protocol/output.js';
import type { Message, ToolResultMessage, UserMessage } from './types.js';

export type { OutputSpec } from '../roles/profile.js';

/** The tool's name: reserved among the host's tools (a library user's tool may not take it). */
export const FINAL_ANSWER = 'final_answer';
export const DEFAULT_OUTPUT_RETRIES = 1;

let compile: ((schema: unknown) => ArgumentValidator) | undefined;

/** Loads the schema checker (ajv, lazily: `murmur --help` never pays for it); a host awaits it before running agents with an output. */
export async function loadOutputChecks(): Promise<void> {
  compile ??= await loadJsonSchemaValidators();
}

/** The tool's parameters: the schema itself when it describes an object, else the schema under `value`. */
function parametersOf(schema: Record<string, unknown>): { parameters: Record<string, unknown>; wrapped: boolean } {
  const { $schema: _dropped, ...rest } = schema;
  if (rest.type === 'object') return { parameters: rest, wrapped: false };
  return { parameters: { type: 'object', properties: { value: rest }, required: ['value'] }, wrapped: true };
}

const tools = new WeakMap<OutputSpec, RuntimeTool>();

function recorded(output: unknown): ToolResult {
  return { content: [{ type: 'text', text: 'Answer recorded.' }], details: { output } };
}

/** The schema library's verdict: its value recorded, or its issues sent back as the call's error. */
function recordedIfValid(checked: SchemaCheck): ToolResult {
  if (checked.ok) return recorded(checked.value);
  return {
    content: [{ type: 'text', text: `The answer does not match the schema: ${checked.problem}` }],
    isError: true,
  };
}

/** The final_answer tool of an output (one per output: every item of a swarm shares it). */
export function finalAnswerTool(spec: OutputSpec): RuntimeTool {
  const made = tools.get(spec);
  if (made) return made;
  const { parameters, wrapped } = parametersOf(spec.schema);
  let check: ArgumentValidator | undefined;
  const tool: RuntimeTool = {
    def: {
      name: FINAL_ANSWER,
      ...FINAL_ANSWER_TRAITS,
      description: wrapped
        ? 'Give your final answer as `value` (it must match the schema). This ends your work.'
        : 'Give your final answer as the arguments (they must match the schema). This ends your work.',
      parameters: parameters as unknown as TSchema,
      validate: (args) => {
        if (!compile) return 'the output check is not loaded (loadOutputChecks() was not awaited)';
        check ??= compile(parameters);
        return check(args);
      },
    },
    impl: (_ctx, input): ToolResult | Promise<ToolResult> => {
      const answer = wrapped ? (input as { value: unknown }).value : input;
      if (!spec.check) return recorded(answer);
      const checked = spec.check(answer);
      return checked instanceof Promise ? checked.then(recordedIfValid) : recordedIfValid(checked);
    },
    source: 'builtin',
  };
  tools.set(spec, tool);
  return tool;
}

/** What the agent is told, after its own prompt. */
export function outputInstruction(spec: OutputSpec): string {
  const { parameters, wrapped } = parametersOf(spec.schema);
  return [
    `Your answer is structured. When your work is done, call the tool ${FINAL_ANSWER} once, with your answer as ${wrapped ? 'its `value` argument' : 'its arguments'}: they must match this JSON Schema. That call ends your work; text you write is not your answer. If the call is refused, correct the arguments as its error says and call it again.`,
    `\`\`\`json\n${JSON.stringify(wrapped ? spec.schema : parameters, null, 2)}\n\`\`\``,
  ].join('\n\n');
}

/** The agent's catalog plus final_answer (the same object every turn while the catalog is unchanged). */
export function withFinalAnswer(
  toolsForTurn: (turn: number) => LoopTools | Promise<LoopTools>,
  spec: OutputSpec,
): (turn: number) => LoopTools | Promise<LoopTools> {
  const tool = finalAnswerTool(spec);
  let base: LoopTools | undefined;
  let made: LoopTools | undefined;
  const add = (offered: LoopTools): LoopTools => {
    if (offered === base && made) return made;
    const map = new Map(offered.tools);
    map.set(FINAL_ANSWER, tool);
    base = offered;
    made = { ...offered, tools: map, schemas: [...offered.schemas, toolSchema(tool)] };
    return made;
  };
  return (turn) => {
    const offered = toolsForTurn(turn);
    return offered instanceof Promise ? offered.then(add) : add(offered);
  };
}

/** A valid final answer's tool result (its checked value in `details.output`). */
export function isAcceptedAnswer(message: Message): message is ToolResultMessage & { details: { output: unknown } } {
  return (
    message.role === 'tool' &&
    message.toolName === FINAL_ANSWER &&
    !message.isError &&
    typeof message.details === 'object' &&
    message.details !== null &&
    'output' in message.details
  );
}

/** The last valid final answer in a conversation (a completed agent with an output ended on it), or undefined. */
export function finalAnswerOf(messages: readonly Message[]): { value: unknown } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (isAcceptedAnswer(message)) return { value: message.details.output };
  }
  return undefined;
}

/** A final answer as the agent's handoff text (its parent, a verifier and the report read it). */
export function answerText(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}

export type AnswerEnd = { status: 'completed'; text: string } | { status: 'failed'; reason: string };

/** One run's judge of an agent's answers: how many invalid ones it has sent back so far. */
export class AnswerJudge {
  private invalid = 0;

  constructor(private readonly spec: OutputSpec) {}

  private get retries(): number {
    return this.spec.retries ?? DEFAULT_OUTPUT_RETRIES;
  }

  private failed(problem: string): AnswerEnd {
    return {
      status: 'failed',
      reason: `no valid final answer after ${this.invalid} attempt(s) (outputRetries ${this.retries}): ${problem}`,
    };
  }

  /** After a tool batch: a valid final answer ends the run; invalid ones count, past the retries the run fails. */
  afterBatch(results: readonly ToolResultMessage[]): AnswerEnd | undefined {
    let refused: ToolResultMessage | undefined;
    for (const result of results) {
      if (isAcceptedAnswer(result)) return { status: 'completed', text: answerText(result.details.output) };
      if (result.toolName === FINAL_ANSWER) refused = result;
    }
    if (!refused) return undefined;
    this.invalid++;
    return this.invalid > this.retries ? this.failed(resultText(refused)) : undefined;
  }

  /** The model answered in text without calling final_answer: it is told to, or the run fails past the retries. */
  afterText(): UserMessage | AnswerEnd {
    this.invalid++;
    if (this.invalid > this.retries) return this.failed(`it answered in text without calling ${FINAL_ANSWER}`);
    return {
      role: 'user',
      content: `Your answer must be given by calling the tool ${FINAL_ANSWER}, with arguments that match its schema. Call it now.`,
      synthetic: { kind: 'output-retry' },
    };
  }
}
