// The library's tracing: spans go to the tracer provider given as `tracerProvider`, else to the one the application
// registered globally (`trace.setGlobalTracerProvider`, or an SDK's `register()`). Only the OpenTelemetry API is
// imported. With no provider registered the API's no-op tracer records nothing: the first run finds that out at its
// first span and lets go of its events, and later runs are not traced at all until a provider is registered.
import { ProxyTracerProvider, trace, type TracerProvider } from '@opentelemetry/api';
import type { TracingInput } from '../host/tracing/links.js';

/** OpenTelemetry tracing of runs: the tracer provider spans go to, and whether prompts and answers are recorded. */
export interface TracingOptions {
  /**
   * Prompts and completions (`gen_ai.input.messages`, `gen_ai.output.messages`), tool arguments and results, tasks
   * and item labels on the spans. Default false: spans carry names, ids, models, token counts and statuses only.
   */
  captureContent?: boolean;
}

/** Providers found to be the no-op one (the global proxy's delegate while nothing is registered). */
const silent = new WeakSet<TracerProvider>();

/** How a run is traced: undefined when its provider is known to record nothing. */
export function tracingFor(options: {
  tracerProvider?: TracerProvider;
  tracing?: TracingOptions;
}): TracingInput | undefined {
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  if (silent.has(delegate)) return undefined;
  return {
    provider,
    captureContent: options.tracing?.captureContent === true,
    onSilent: () => silent.add(delegate),
  };
}

/** The problem with the tracing options, if any: [option, message]. */
export function tracingProblem(options: { tracerProvider?: unknown; tracing?: unknown }): [string, string] | undefined {
  const provider = options.tracerProvider as { getTracer?: unknown } | undefined | null;
  if (
    provider !== undefined &&
    (typeof provider !== 'object' || provider === null || typeof provider.getTracer !== 'function')
  )
    return ['tracerProvider', 'give an OpenTelemetry TracerProvider (an object with getTracer()).'];
  const tracing = options.tracing as Record<string, unknown> | undefined | null;
  if (tracing === undefined) return undefined;
  if (typeof tracing !== 'object' || tracing === null || Array.isArray(tracing))
    return ['tracing', 'give { captureContent?: boolean }.'];
  for (const key of Object.keys(tracing))
    if (key !== 'captureContent') return [`tracing.${key}`, 'unknown option; accepted: captureContent.'];
  if (tracing.captureContent !== undefined && typeof tracing.captureContent !== 'boolean')
    return ['tracing.captureContent', 'must be true or false.'];
  return undefined;
}
