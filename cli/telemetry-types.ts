// What a started OpenTelemetry SDK hands the command line (telemetry-sdk.ts makes it, telemetry.ts keeps it).
import type { TracingInput } from '../host/tracing/links.js';

export interface CommandTelemetry {
  tracing: TracingInput;
  /** Exports what is still buffered and stops, waiting at most `deadlineMs` (an unreachable collector does not hold the exit up). */
  shutdown(deadlineMs: number): Promise<void>;
}
