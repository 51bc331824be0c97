// A library user's own ModelProvider, held to its contract: a throw or a result of the wrong shape becomes a
// `malformed` ModelError naming the provider and the field, never retried (the same code answers the same way),
// instead of a TypeError deep in the loop.
import {
  describedAs,
  modelError,
  retriedByDefault,
  type ModelErrorKind,
  type ModelProvider,
  type ModelResult,
} from './provider.js';

// A Record so that a new kind cannot be forgotten here.
const KINDS: Record<ModelErrorKind, true> = {
  rate_limit: true,
  server: true,
  network: true,
  malformed: true,
  auth: true,
  bad_request: true,
  not_found: true,
  aborted: true,
  script: true,
  unknown: true,
};
const STOP_REASONS = new Set(['end', 'tool_calls', 'length']);
const USAGE_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/** A value for a message: its type and, when short, itself. */
function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 40 ? `a ${typeof value}` : text;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first field of an assistant message that breaks the contract, as `message.<field> … (what it was)`. */
function messageProblem(message: unknown): string | undefined {
  if (!isRecord(message)) return `message that is not an object (${shown(message)})`;
  if (message.role !== 'assistant') return `message.role that is not "assistant" (${shown(message.role)})`;
  if (typeof message.text !== 'string') return `message.text that is not a string (${shown(message.text)})`;
  if (!Array.isArray(message.toolCalls)) return `message.toolCalls that is not a list (${shown(message.toolCalls)})`;
  for (const [i, call] of message.toolCalls.entries()) {
    if (!isRecord(call)) return `message.toolCalls[${i}] that is not an object (${shown(call)})`;
    for (const field of ['id', 'name', 'arguments'] as const)
      if (typeof call[field] !== 'string')
        return `message.toolCalls[${i}].${field} that is not a string (${shown(call[field])})`;
  }
  if (!STOP_REASONS.has(message.stopReason as string))
    return `message.stopReason that is not "end", "tool_calls" or "length" (${shown(message.stopReason)})`;
  if (message.usage !== undefined) {
    if (!isRecord(message.usage)) return `message.usage that is not an object (${shown(message.usage)})`;
    for (const field of USAGE_FIELDS) {
      const value = message.usage[field];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        return `message.usage.${field} that is not a count of tokens (${shown(value)})`;
    }
  }
  if (message.thinking !== undefined && !Array.isArray(message.thinking))
    return `message.thinking that is not a list (${shown(message.thinking)})`;
  return undefined;
}

/** The first thing wrong with a result, or undefined. A failure missing `retryable` gets its kind's default. */
function resultProblem(result: unknown): string | undefined {
  if (!isRecord(result)) return `${shown(result)}, not { ok: true, message } or { ok: false, error }`;
  if (result.ok === true) return messageProblem(result.message);
  if (result.ok !== false) return `ok that is not true or false (${shown(result.ok)})`;
  const error = result.error;
  if (!isRecord(error)) return `error that is not an object (${shown(error)})`;
  if (typeof error.kind !== 'string' || !Object.hasOwn(KINDS, error.kind))
    return `error.kind that is not a ModelErrorKind (${shown(error.kind)})`;
  if (typeof error.message !== 'string') return `error.message that is not a string (${shown(error.message)})`;
  return undefined;
}

function broken(provider: ModelProvider, what: string): ModelResult {
  return modelError('malformed', `provider "${provider.name}": complete() ${what}`, { retryable: false });
}

/** The provider, its every answer checked: a bad value or a throw comes back as one line naming the field. */
export function checkedProvider(provider: ModelProvider): ModelProvider {
  return {
    ...describedAs(provider),
    async complete(request, signal) {
      let result: ModelResult;
      try {
        result = await provider.complete(request, signal);
      } catch (error) {
        if (signal.aborted) return modelError('aborted', 'aborted');
        const said = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        return broken(
          provider,
          `threw ${said.replace(/\s+/g, ' ')} (a failure must be returned: modelError(kind, message))`,
        );
      }
      const problem = resultProblem(result);
      if (problem) return broken(provider, `returned ${problem}`);
      // A failure built by hand may leave out `retryable`: its kind decides, as modelError would.
      if (!result.ok && typeof result.error.retryable !== 'boolean')
        return { ok: false, error: { ...result.error, retryable: retriedByDefault(result.error.kind) } };
      return result;
    },
  };
}
