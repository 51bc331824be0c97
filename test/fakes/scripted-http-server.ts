// The HTTP shell both fake provider servers share: requests recorded with their JSON bodies, replies taken from
// a queue (then from a fallback), an error reply as JSON, a streamed reply handed to the provider's writer.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when the body was not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** Becomes true if the client hung up before the reply was complete (an abort). */
  closedEarly: boolean;
}

export interface ErrorReply {
  kind: 'error';
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A body sent as it is: an HTML page where an API answer belongs, a hand-written (broken) event stream. */
export interface RawReply {
  kind: 'raw';
  status: number;
  contentType: string;
  body: string;
}

/** A 200 HTML page, as a web UI or a proxy's error page at the wrong base URL answers. */
export function htmlPage(status: number, title: string, text = ''): RawReply {
  const body = `<!DOCTYPE html>\n<html>\n<head><title>${title}</title>\n<style>body { font: 14px sans-serif; }</style></head>\n<body>\n  <h1>${title}</h1>\n  <p>${text}</p>\n</body>\n</html>\n`;
  return { kind: 'raw', status, contentType: 'text/html; charset=utf-8', body };
}

/** An event stream written by hand: each frame's `data:` sent as it is (valid JSON or not), after its `event:` if named. */
export function rawEventStream(frames: (string | { event: string; data: string })[]): RawReply {
  const text = (frame: string | { event: string; data: string }) =>
    typeof frame === 'string' ? `data: ${frame}\n\n` : `event: ${frame.event}\ndata: ${frame.data}\n\n`;
  return { kind: 'raw', status: 200, contentType: 'text/event-stream', body: frames.map(text).join('') };
}

export interface ScriptedHttpServer<R> {
  /** The server's origin plus the API's base path. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Replies used one per request, in order. */
  enqueue(...replies: R[]): void;
  /** Answers requests once the queue is empty. */
  setFallback(replier: (request: RecordedRequest, index: number) => R): void;
  close(): Promise<void>;
}

export interface ScriptedHttpOptions<R> {
  /** Appended to the origin in `baseURL` ('/v1' for OpenAI, '' for Anthropic). */
  basePath: string;
  /** The one POST route the API serves, e.g. '/v1/messages'. */
  route: string;
  /** The JSON body of a 404, in the API's error shape. */
  notFound: (method: string, path: string) => unknown;
  fallback: (request: RecordedRequest, index: number) => R;
  /** Writes a streamed reply (not called for error replies). */
  stream: (res: ServerResponse, reply: Exclude<R, ErrorReply | RawReply>, record: RecordedRequest) => Promise<void>;
}

export async function startScriptedHttpServer<R extends { kind: string }>(
  options: ScriptedHttpOptions<R>,
): Promise<ScriptedHttpServer<R>> {
  const requests: RecordedRequest[] = [];
  const queue: R[] = [];
  let fallback = options.fallback;

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const record: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        closedEarly: false,
      };
      const index = requests.length;
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      if (req.method !== 'POST' || !record.path.startsWith(options.route)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(options.notFound(req.method ?? '', record.path)));
        return;
      }
      const reply = queue.shift() ?? fallback(record, index);
      if (reply.kind === 'error') {
        const error = reply as unknown as ErrorReply;
        res.writeHead(error.status, { 'content-type': 'application/json', ...error.headers });
        res.end(JSON.stringify(error.body));
        return;
      }
      if (reply.kind === 'raw') {
        const raw = reply as unknown as RawReply;
        res.writeHead(raw.status, { 'content-type': raw.contentType });
        res.end(raw.body);
        return;
      }
      void options.stream(res, reply as Exclude<R, ErrorReply | RawReply>, record);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${options.basePath}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    setFallback: (replier) => {
      fallback = replier;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
