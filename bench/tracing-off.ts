// Tracing with no tracer provider registered must cost nothing measurable (issue 23). The overhead benchmark runs its
// loop once more with a fresh bus per agent run, as each run of the library gets one, half of them traced as the
// library traces a run (api/tracing.ts, host/tracing/) with no provider registered: the rounds alternate and the
// two medians are compared.
import { EventBus } from '../orchestrator/events.js';
import { SpanRecorder } from '../host/tracing/recorder.js';
import { tracingFor } from '../api/tracing.js';

/** A bus as a run of the library gets it: traced as the library traces it, with nobody registered to record. */
export function busWithTracingOff(): EventBus {
  const bus = new EventBus();
  const tracing = tracingFor({});
  if (tracing) new SpanRecorder(bus, { ...tracing, model: 'scripted' });
  return bus;
}

export function freshBus(): EventBus {
  return new EventBus();
}

export async function compareTracingOff(
  time: (busOf: () => EventBus) => Promise<number>,
  report: (line: string) => void,
): Promise<void> {
  const off: number[] = [];
  const none: number[] = [];
  for (let round = 0; round < 2; round++) {
    await time(freshBus);
    await time(busWithTracingOff);
  }
  for (let round = 0; round < 7; round++) {
    none.push(await time(freshBus));
    off.push(await time(busWithTracingOff));
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  const a = median(off);
  const b = median(none);
  report(
    `  tracing with no provider registered: ${a.toFixed(2)} us/tool call against ${b.toFixed(2)} without tracing (ratio ${(a / b).toFixed(3)}; a bus per agent run)`,
  );
}
