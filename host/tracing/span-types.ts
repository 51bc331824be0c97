// The span vocabulary the recorder shares with its parts (swarm-spans.ts): an open span with its context, and how
// one is started.
import type { Attributes, Context, Span, SpanKind } from '@opentelemetry/api';

export interface Open {
  span: Span;
  context: Context;
}
export type SpanStarter = (name: string, parent: Context, attributes: Attributes, kind?: SpanKind) => Open;
