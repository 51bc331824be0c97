// What the host's tracing needs besides the engine, with no OpenTelemetry code loaded: the choice a front end
// passes to the assembly (TracingInput), and where a queue swarm's launcher finds the trace context of an item's
// span (the tracing subscriber of the engine's bus publishes it here) to put in the item's job.
import type { TracerProvider } from '@opentelemetry/api';
import type { EventBus } from '../../orchestrator/events.js';

export interface TracingInput {
  /** Where spans go: the application's (or the command line's) provider, or the global one. */
  provider: TracerProvider;
  /** Prompts, completions, tool arguments and results on the spans (the conventions' opt-in content). */
  captureContent: boolean;
  /** The W3C traceparent of a span in another process (a queue item's, for its worker): this engine's spans join its trace. */
  parent?: string;
  /**
   * Called when the provider turns out to be the API's no-op one (no SDK registered): the front end may leave its
   * next runs untraced, at no cost, until a provider is registered.
   */
  onSilent?: () => void;
}

type ItemContext = (swarmId: string, index: number) => string | undefined;
const published = new WeakMap<EventBus, ItemContext>();

/** Called by the tracing subscriber of `bus`: how it answers for an item's span. */
export function publishItemContexts(bus: EventBus, lookup: ItemContext): () => void {
  published.set(bus, lookup);
  return () => {
    if (published.get(bus) === lookup) published.delete(bus);
  };
}

/** The traceparent of item `index` of swarm `swarmId` on this engine's bus, when its spans are recorded. */
export function itemTraceparent(bus: EventBus, swarmId: string, index: number): string | undefined {
  return published.get(bus)?.(swarmId, index);
}
