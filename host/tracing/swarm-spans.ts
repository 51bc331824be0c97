// The swarm part of the span tree: a span per swarm (`murmur.swarm`) and per item (`murmur.swarm.item`, from the
// item's first state to its outcome, each change in between an event on it). An item's agents (its worker and its
// verifiers) find their parent here by the item's label; a queue launcher finds the item's trace context here.
import { SpanStatusCode } from '@opentelemetry/api';
import type { Attributes, Context } from '@opentelemetry/api';
import type { EventOf } from '../../orchestrator/events.js';
import { formatTraceparent } from './traceparent.js';
import type { Open, SpanStarter } from './span-types.js';

interface SwarmSpan extends Open {
  /** Item label → its index (the first, should two be equal). */
  indexOf: Map<string, number>;
}

const ENDED_ITEM = new Set(['completed', 'failed', 'aborted', 'conflict']);

export class SwarmSpans {
  private readonly swarms = new Map<string, SwarmSpan>();
  private readonly items = new Map<string, Open>();

  constructor(
    private readonly start: SpanStarter,
    /** Content is captured: descriptions, item labels and failure reasons go on the spans. */
    private readonly content: boolean,
  ) {}

  /** The context of the span of the item labelled `item` in swarm `swarmId`, while it is open. */
  itemContext(swarmId: string, item: string): Context | undefined {
    const index = this.swarms.get(swarmId)?.indexOf.get(item);
    return index !== undefined ? this.items.get(`${swarmId}#${index}`)?.context : undefined;
  }

  traceparent(swarmId: string, index: number): string | undefined {
    const item = this.items.get(`${swarmId}#${index}`);
    return item ? formatTraceparent(item.span.spanContext()) : undefined;
  }

  /** The swarm's span under `parent`, kept when `recorded` finds the provider records it. */
  swarmStart(event: EventOf<'swarm.start'>, parent: Context, recorded: (open: Open) => boolean): void {
    const attributes: Attributes = {
      'murmur.swarm.id': event.swarmId,
      'murmur.swarm.role': event.role,
      'murmur.swarm.items': event.items.length,
    };
    if (event.maxConcurrency !== undefined) attributes['murmur.swarm.max_concurrency'] = event.maxConcurrency;
    if (this.content) attributes['murmur.swarm.description'] = event.description;
    const open = this.start('murmur.swarm', parent, attributes);
    if (!recorded(open)) return;
    const indexOf = new Map<string, number>();
    event.items.forEach((item, index) => {
      if (!indexOf.has(item)) indexOf.set(item, index);
    });
    this.swarms.set(event.swarmId, { ...open, indexOf });
  }

  swarmItem(event: EventOf<'swarm.item'>, fallback: Context): void {
    const key = `${event.swarmId}#${event.index}`;
    let item = this.items.get(key);
    const ended = ENDED_ITEM.has(event.state);
    if (!item) {
      // An item that finished before a resume, or a late change after its end (a lost record), makes no span.
      if (ended) return;
      const attributes: Attributes = { 'murmur.swarm.id': event.swarmId, 'murmur.swarm.item.index': event.index };
      if (this.content) attributes['murmur.swarm.item'] = event.item;
      item = this.start('murmur.swarm.item', this.swarms.get(event.swarmId)?.context ?? fallback, attributes);
      this.items.set(key, item);
    }
    const { span } = item;
    if (!ended) {
      const attributes: Attributes = {};
      if (event.agentId !== undefined) attributes['murmur.agent.id'] = event.agentId;
      if (event.verifierId !== undefined) attributes['murmur.verifier.id'] = event.verifierId;
      if (event.verdict !== undefined) attributes['murmur.verdict'] = event.verdict;
      if (event.host !== undefined) attributes['murmur.worker.host'] = event.host;
      span.addEvent(`murmur.swarm.item.${event.state}`, attributes);
      return;
    }
    span.setAttribute('murmur.swarm.item.outcome', event.state);
    if (event.verdict !== undefined) span.setAttribute('murmur.swarm.item.verdict', event.verdict);
    if (event.rounds !== undefined) span.setAttribute('murmur.swarm.item.rounds', event.rounds);
    if (event.host !== undefined) span.setAttribute('murmur.worker.host', event.host);
    if (event.state !== 'completed')
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: this.content && event.reason !== undefined ? event.reason : event.state,
      });
    span.end();
    this.items.delete(key);
  }

  swarmEnd(event: EventOf<'swarm.end'>): void {
    const swarm = this.swarms.get(event.swarmId);
    if (!swarm) return;
    for (const [key, item] of this.items)
      if (key.startsWith(`${event.swarmId}#`)) {
        item.span.end();
        this.items.delete(key);
      }
    for (const [state, count] of Object.entries(event.counts)) swarm.span.setAttribute(`murmur.swarm.${state}`, count);
    swarm.span.end();
    this.swarms.delete(event.swarmId);
  }

  /** Ends what is open (a run cut short). */
  close(at: number): void {
    for (const open of [...this.items.values(), ...this.swarms.values()]) open.span.end(at);
    this.items.clear();
    this.swarms.clear();
  }
}
