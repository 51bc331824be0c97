// Traces from the command line: when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set,
// the OpenTelemetry SDK is loaded (telemetry-sdk.ts) and every engine this process builds records its spans there;
// otherwise nothing of it is loaded, so start-up is unchanged. The spans are flushed before the command exits.
import type { TracingInput } from '../host/tracing/links.js';
import type { CommandTelemetry } from './telemetry-types.js';

export type { CommandTelemetry } from './telemetry-types.js';

let active: CommandTelemetry | undefined;

/** Whether the environment asks for traces (an OTLP endpoint, and the SDK not disabled). */
export function tracesWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

export async function startTelemetry(env: NodeJS.ProcessEnv): Promise<void> {
  if (active || !tracesWanted(env)) return;
  const { startSdk } = await import('./telemetry-sdk.js');
  active = startSdk(env);
}

/** The assembly's tracing choice for this process (`parent`: a queue item's trace context, on a worker). */
export function commandTracing(parent?: string): { tracing?: TracingInput } {
  if (!active) return {};
  return { tracing: parent !== undefined ? { ...active.tracing, parent } : active.tracing };
}

/** How long a command's exit waits for its spans to be exported; a second Ctrl-C waits QUICK_FLUSH_MS. */
export const FLUSH_MS = 5_000;
export const QUICK_FLUSH_MS = 1_000;

/** Flushes and stops the SDK, if it was started. */
export async function flushTelemetry(deadlineMs = FLUSH_MS): Promise<void> {
  const telemetry = active;
  active = undefined;
  await telemetry?.shutdown(deadlineMs);
}
