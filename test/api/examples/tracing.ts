// README "Use it from code", "Tracing": a swarm's spans sent to the tracer provider the application set up.
import { createMurmur } from '../../../api/index.js';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

/** `exporter`: where your traces go, e.g. `new OTLPTraceExporter()` of @opentelemetry/exporter-trace-otlp-http. */
export async function tracedBatch(cwd: string, files: string[], exporter: SpanExporter) {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  const murmur = await createMurmur({ cwd, permissionMode: 'auto', tracerProvider });
  try {
    return await murmur.swarm({ template: 'Convert {{item}} to ES modules.', items: files, verify: true });
  } finally {
    await murmur.close();
    await tracerProvider.shutdown(); // exports the spans still buffered
  }
}
