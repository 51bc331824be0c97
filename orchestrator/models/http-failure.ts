// How the HTTP providers turn SDK failures into ModelError values: one reading of statuses, Retry-After,
// dropped connections and missing keys for every provider.
import { describeBody, excerpt, isHtml } from './body-excerpt.js';
import { errorKindForStatus, modelError, parseRetryAfter, type ModelResult } from './provider.js';
import { notAStream } from './stream-fetch.js';

export interface EndpointFacts {
  /** The provider's name (`openai:gpt-4.1`). */
  name: string;
  model: string;
  /** The base URL in use. */
  where: string;
  /** Set when the user chose the base URL. */
  baseURL?: string;
  /** The variable holding the key, when one is needed. */
  keyEnvVar?: string;
}

/** The SDK error classes both official SDKs share (they are generated from the same template). */
export interface SdkErrors {
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

/** undici's "terminated" (the body stopped mid-read) or a socket error code anywhere in the cause chain. */
export function isDroppedConnection(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current instanceof Error && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (current.name === 'TypeError' && current.message === 'terminated') return true;
    const code = (current as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|EAI_AGAIN|UND_ERR)/.test(code)
    )
      return true;
  }
  return false;
}

/** The innermost cause's message: "connect ECONNREFUSED 127.0.0.1:11434" beats "Connection error.". */
export function describeError(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    const cause = current instanceof Error ? (current as { cause?: unknown }).cause : undefined;
    if (!(cause instanceof Error)) break;
    current = cause;
  }
  return current instanceof Error ? current.message : String(current);
}

/** Longest server message quoted whole (an API's own message can be long: a context-length complaint). */
const SAID_CHARS = 1000;

/** What the server said, on one line: an HTML error page as a short excerpt of its text, the SDK's status prefix dropped. */
function whatWasSaid(status: number, said: string, contentType: string | null | undefined): string {
  const body = said.startsWith(`${status} `) ? said.slice(`${status} `.length) : said;
  if (isHtml(body, contentType)) return describeBody(body, contentType);
  const line = body.replace(/\s+/g, ' ').trim();
  return line.length > SAID_CHARS ? `${line.slice(0, SAID_CHARS - 1)}…` : line;
}

/** An HTTP error status, with Retry-After, and for 401/403/404 what to fix. */
export function statusFailure(
  facts: EndpointFacts,
  status: number,
  said: string,
  headers: { get(name: string): string | null } | undefined,
): ModelResult {
  const kind = errorKindForStatus(status);
  const extra: { status: number; retryAfterMs?: number } = { status };
  const retryAfterMs = parseRetryAfter(headers);
  if (retryAfterMs !== undefined) extra.retryAfterMs = retryAfterMs;
  const base = `${facts.name}: HTTP ${status} from ${facts.where}: ${whatWasSaid(status, said, headers?.get('content-type'))}`;
  if (kind === 'auth') {
    const fix = facts.keyEnvVar
      ? `set ${facts.keyEnvVar} to a valid key${facts.baseURL ? ` (or check the base URL ${facts.baseURL})` : ''}`
      : `check the base URL ${facts.where} and whether that server needs a key`;
    return modelError('auth', `${base} — ${fix}`, extra);
  }
  if (kind === 'not_found')
    return modelError('not_found', `${base} — check the model name "${facts.model}" and the base URL`, extra);
  // 529 overloaded falls in the server range: retryable.
  return modelError(kind, base, extra);
}

/** A stream that ended cleanly before its first event. */
export function emptyStreamFailure(facts: EndpointFacts): ModelResult {
  return modelError('malformed', `${facts.name}: ${facts.where} answered with an empty stream (no events)`);
}

/**
 * The failures every provider reads alike: aborts, unreachable servers, answers that are not streams.
 * Returns undefined for an SDK APIError, which each provider reads itself (its body differs).
 */
export function transportFailure(
  facts: EndpointFacts,
  error: unknown,
  sdk: SdkErrors,
  signal: AbortSignal,
): ModelResult | undefined {
  if (signal.aborted || error instanceof sdk.APIUserAbortError) return modelError('aborted', 'aborted');
  // Thrown by streamFetch, so the SDK wraps it as a connection error: it is an answer, not a lost connection.
  const page = notAStream(error);
  if (page) return modelError('malformed', `${facts.name}: ${facts.where} ${page.describe()} — check the base URL`);
  if (error instanceof sdk.APIConnectionError) {
    const detail = describeError(error);
    const hint = /ECONNREFUSED/.test(detail) ? ' (is the server running?)' : '';
    return modelError('network', `${facts.name}: cannot reach ${facts.where}: ${detail}${hint}`);
  }
  return undefined;
}

/** What is left once the API errors are read: malformed events, cut connections, the unknown. */
export function otherFailure(
  facts: EndpointFacts,
  error: unknown,
  stream: { eventsRead: number; unparsed: string | undefined },
): ModelResult {
  // The SDK's JSON.parse of an event's data (the data itself comes from the SDK's log, sdk-log.ts).
  if (error instanceof SyntaxError) {
    const what = stream.unparsed === undefined ? error.message : JSON.stringify(excerpt(stream.unparsed));
    return modelError(
      'malformed',
      `${facts.name}: the stream from ${facts.where} was malformed at event ${stream.eventsRead + 1}, not JSON: ${what}`,
    );
  }
  if (isDroppedConnection(error))
    return modelError('network', `${facts.name}: the connection broke while streaming: ${describeError(error)}`);
  return modelError('unknown', `${facts.name}: ${describeError(error)}`, { retryable: false });
}
