// The fetch both SDK clients use. Every murmur request asks for a stream, so a successful answer that is not one
// (an HTML page, a JSON body) is stopped here with what it was; left to the SDK, its SSE reader finds no events and
// the call looks like a cut connection.
import { excerpt, isHtml } from './body-excerpt.js';

/** A 2xx answer that is not an event stream. Its message stays neutral: the SDKs read "timeout" in it as a timeout. */
export class NotAStreamError extends Error {
  override readonly name = 'NotAStreamError';
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly body: string,
  ) {
    super('the answer is not an event stream');
  }

  /** `answered HTTP 200 with an HTML page, not a stream: "…"`. */
  describe(): string {
    const html = isHtml(this.body, this.contentType);
    const what = html ? 'an HTML page' : this.contentType || 'a body without a content type';
    return `answered HTTP ${this.status} with ${what}, not a stream: ${JSON.stringify(excerpt(this.body, html))}`;
  }
}

/** NotAStreamError anywhere in the cause chain (the SDKs wrap what fetch throws). */
export function notAStream(error: unknown): NotAStreamError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof NotAStreamError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Enough of the body to tell an SSE stream from a page. */
const PEEK_CHARS = 16;
/** Enough of a page to quote (excerpts are shorter). */
const KEEP_BYTES = 8192;

// Lines an SSE stream may start with: a field or a comment.
const SSE_START = /^(data|event|id|retry)?:/;

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Wraps fetch: an event stream (by content type, else by its first line) passes; another 2xx throws NotAStreamError. */
export function streamFetch(inner: Fetch = (input, init) => fetch(input, init)): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const contentType = response.headers.get('content-type') ?? '';
    // Errors are the SDK's to read (it quotes their bodies); a declared stream goes straight through.
    if (!response.ok || !response.body || /event-stream/i.test(contentType)) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const seen: Uint8Array[] = [];
    let head = '';
    let done = false;
    while (!done && head.trimStart().length < PEEK_CHARS) {
      const read = await reader.read();
      done = read.done;
      if (read.value) {
        seen.push(read.value);
        head += decoder.decode(read.value, { stream: true });
      }
    }
    const start = head.trimStart();
    if (start === '' || (SSE_START.test(start) && !isHtml(start, contentType))) return replay(response, seen, reader);
    let size = head.length;
    while (!done && size < KEEP_BYTES) {
      const read = await reader.read();
      done = read.done;
      if (read.value) {
        head += decoder.decode(read.value, { stream: true });
        size += read.value.length;
      }
    }
    if (!done) void reader.cancel().catch(() => undefined);
    throw new NotAStreamError(response.status, contentType, head);
  };
}

/** The response again, its body the chunks already read and then the rest. */
function replay(response: Response, seen: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array>): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of seen) controller.enqueue(chunk);
    },
    async pull(controller) {
      const read = await reader.read();
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
