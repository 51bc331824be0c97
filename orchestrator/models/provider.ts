// One interface for every model provider. Failures are values, never exceptions.
import type { AssistantMessage, Effort, Message, ToolSchema } from '../types.js';

/** What a model can take: images, parallel tool calls, reasoning effort. */
export interface ModelCapabilities {
  /** Takes images natively. */
  images: boolean;
  /** Takes video natively. */
  video: boolean;
  /** Tokens. */
  contextWindow: number;
}

/** One model call: the agent making it, its system prompt, the conversation so far and the tools it may call. */
export interface ModelRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSchema[];
  /**
   * Who asks. `attempt`: the swarm item's attempt this agent works on (1 at first, +1 per `murmur resume --retry`),
   * saved with the session; 1 for agents outside swarms (the loop always sets it; absent reads as 1).
   */
  agent: { id: string; role: string; attempt?: number };
  maxOutputTokens?: number;
  /** Receives text as it streams in. */
  onTextDelta?: (text: string) => void;
  /** Receives the model's reasoning as it streams in (never part of the answer text). */
  onThinkingDelta?: (text: string) => void;
  /** How hard to think, where the model has such a knob (see effort.ts); absent = the model's default. */
  effort?: Effort;
  /** Receives what the user should know but that does not fail the call (a server refused --effort); the loop logs it. */
  onWarning?: (message: string) => void;
}

/**
 * Why a model call failed, and whether it is retried (`retryable`, set by `modelError` from the kind unless a
 * provider says otherwise). Retries (retry.ts) back off exponentially with jitter, honour `retryAfterMs`, stop at
 * `[retry] maxAttempts` (`malformed`: after one retry) and emit one `model.retry` event each.
 */
export type ModelErrorKind =
  /** HTTP 429: retried, after Retry-After when given; still failing, a swarm holds its ramp and requeues the item. */
  | 'rate_limit'
  /** HTTP 5xx, 408, 409: retried. */
  | 'server'
  /** A dropped or refused connection, a stream cut short: retried. */
  | 'network'
  /**
   * The server answered, but not with a model's answer (an HTML page or other body instead of a stream, an empty or
   * malformed stream): retried once, since trying again rarely mends it. A custom provider's result that breaks this
   * contract (or a throw) is one too, never retried; its message names the field.
   */
  | 'malformed'
  /** HTTP 401/403 or a missing key: never retried; the message names what to set. */
  | 'auth'
  /** Any other 4xx (a malformed request, a context too long): never retried. */
  | 'bad_request'
  /** HTTP 404 (an unknown model or base URL): never retried. */
  | 'not_found'
  /** The agent was stopped while the call (or a wait between retries) ran: never retried. */
  | 'aborted'
  /** The scripted model has no entry or turn for this agent: never retried. */
  | 'script'
  /** Anything else (a provider SDK that cannot load…): never retried. */
  | 'unknown';

/** A model call that failed, as data: its kind (what retries look at), the provider's status and words. */
export interface ModelError {
  kind: ModelErrorKind;
  message: string;
  /** The HTTP status, when there was one. */
  status?: number;
  /** How long the server asked us to wait (Retry-After, retry-after-ms). */
  retryAfterMs?: number;
  /** Whether retry.ts tries again (see ModelErrorKind). */
  retryable: boolean;
}

/** A model call's outcome: the assistant's message, or the error as a value (never thrown). */
export type ModelResult = { ok: true; message: AssistantMessage } | { ok: false; error: ModelError };

/** A model murmur can call: give your own to createMurmur({ model }) (see "Your own model"). */
export interface ModelProvider {
  /** As given on the command line: `openai:gpt-4o`, `scripted:demo.json`… */
  readonly name: string;
  readonly capabilities: ModelCapabilities;
  /** The base URL its calls go to (traces name the server); absent for a model that is no server. */
  readonly endpoint?: string;
  /**
   * One model call: the whole conversation in, one assistant message out. Must not throw: a failure is a value
   * (`modelError(kind, message)`), and its kind decides whether it is retried. Stop when `signal` aborts
   * (answer `modelError('aborted', …)`). Called for many agents at once; keep no state per conversation that
   * the messages do not carry (a resumed agent comes back with its whole conversation).
   */
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult>;
}

/** What a wrapper of `provider` (retries, a gate, a price) says of itself: the same name, capabilities and server. */
export function describedAs(provider: ModelProvider): Omit<ModelProvider, 'complete'> {
  const { name, capabilities, endpoint } = provider;
  return endpoint === undefined ? { name, capabilities } : { name, capabilities, endpoint };
}

/** Whether a failure of this kind is retried when its provider does not say. */
export function retriedByDefault(kind: ModelErrorKind): boolean {
  return kind === 'rate_limit' || kind === 'server' || kind === 'network' || kind === 'malformed';
}

/** A failed ModelResult; `retryable` follows from the kind unless `extra` says otherwise. */
export function modelError(kind: ModelErrorKind, message: string, extra: Partial<ModelError> = {}): ModelResult {
  const retryable = extra.retryable ?? retriedByDefault(kind);
  return { ok: false, error: { kind, message, retryable, ...extra } };
}

/** Classifies an HTTP status the way every provider should. */
export function errorKindForStatus(status: number): ModelErrorKind {
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 409 || status >= 500) return 'server';
  if (status >= 400) return 'bad_request';
  return 'unknown';
}

/** Parses a Retry-After header (seconds or an HTTP date) or retry-after-ms. */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}
