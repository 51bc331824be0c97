// A local OTLP/HTTP receiver for the tracing tests: a node:http server on a free loopback port that takes what
// the OTLP/HTTP exporter posts to /v1/traces (OTLP JSON, gzip when asked) and decodes it into flat spans.
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
  schemaUrl?: string;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      schemaUrl?: string;
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        events?: { name: string; attributes?: KeyValue[] }[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Requests that were not OTLP JSON on /v1/traces (path and content type). */
  readonly refused: string[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const type = request.headers['content-type'] ?? '';
        if (request.method !== 'POST' || request.url !== '/v1/traces' || !type.startsWith('application/json')) {
          receiver?.refused.push(`${request.method} ${request.url} ${type}`);
          response.writeHead(404).end();
          return;
        }
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        receiver?.take(JSON.parse(body.toString('utf8')) as ExportRequest);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    receiver = new OtlpReceiver(server, `http://127.0.0.1:${address.port}`);
    return receiver;
  }

  private take(request: ExportRequest): void {
    for (const rs of request.resourceSpans ?? []) {
      const resource = attributesOf(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? [])
        for (const span of ss.spans ?? [])
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            events: (span.events ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
            status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
            resource,
            scope: ss.scope?.name ?? '',
            ...(ss.schemaUrl ? { schemaUrl: ss.schemaUrl } : {}),
          });
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The children of `span` among `spans`. */
export function childrenOf(spans: readonly ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((s) => s.parentSpanId === span.spanId);
}

/** The tree as indented names (`invoke_agent worker`…), children in a stable order, for readable failures. */
export function outline(spans: readonly ReceivedSpan[]): string {
  const lines: string[] = [];
  const walk = (span: ReceivedSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${span.name}`);
    const kids = childrenOf(spans, span).sort((a, b) => a.name.localeCompare(b.name));
    for (const kid of kids) walk(kid, depth + 1);
  };
  const ids = new Set(spans.map((s) => s.spanId));
  for (const root of spans.filter((s) => !ids.has(s.parentSpanId))) walk(root, 0);
  return lines.join('\n');
}
