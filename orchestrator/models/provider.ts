// One interface for every model provider. Failures are values, never exceptions.
import type { AssistantMessage, Message, ToolSchema } from '../types.js';

export interface ModelCapabilities {
  /** Takes images natively. */
  images: boolean;
  /** Takes video natively. */
  video: boolean;
  /** Tokens. */
  contextWindow: number;
}

export interface ModelRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSchema[];
  agent: { id: string; role: string };
  maxOutputTokens?: number;
  /** Receives text as it streams in. */
  onTextDelta?: (text: string) => void;
}

export type ModelErrorKind =
  | 'rate_limit'
  | 'server'
  | 'network'
  | 'auth'
  | 'bad_request'
  | 'not_found'
  | 'aborted'
  | 'script'
  | 'unknown';

export interface ModelError {
  kind: ModelErrorKind;
  message: string;
  status?: number;
  retryAfterMs?: number;
  retryable: boolean;
}

export type ModelResult = { ok: true; message: AssistantMessage } | { ok: false; error: ModelError };

export interface ModelProvider {
  /** As given on the command line: `openai:gpt-4o`, `scripted:demo.json`… */
  readonly name: string;
  readonly capabilities: ModelCapabilities;
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult>;
}

export function modelError(kind: ModelErrorKind, message: string, extra: Partial<ModelError> = {}): ModelResult {
  const retryable = extra.retryable ?? (kind === 'rate_limit' || kind === 'server' || kind === 'network');
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
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
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
