// The OpenTelemetry SDK as the command line sets it up (loaded only when an OTLP endpoint is configured): a
// BasicTracerProvider with a BatchSpanProcessor and the OTLP/HTTP exporter, which reads the standard OTEL_EXPORTER_OTLP_*
// variables (endpoint, headers, timeout) itself. The resource names the service `murmur` (OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override it). Prompts and completions go on the spans only with
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
import type { AttributeValue, Attributes } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type TracerConfig } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { packageVersion } from './version.js';
import type { CommandTelemetry } from './telemetry-types.js';

type Resource = NonNullable<TracerConfig['resource']>;

/** A fixed set of resource attributes, in the shape the SDK asks for (the resources package is not a dependency). */
function resourceOf(attributes: Attributes): Resource {
  const resource: Resource = {
    attributes,
    asyncAttributesPending: false,
    waitForAsyncAttributes: async () => undefined,
    merge: (other) => (other ? resourceOf({ ...attributes, ...other.attributes }) : resource),
    getRawAttributes: () => Object.entries(attributes) as [string, AttributeValue | undefined][],
  };
  return resource;
}

/** `key=value,key2=value2` (values percent-encoded), as OTEL_RESOURCE_ATTRIBUTES gives them. */
function parseResourceAttributes(raw: string | undefined): Attributes {
  const out: Attributes = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A value that is not valid percent-encoding is left out.
    }
  }
  return out;
}

export function startSdk(env: NodeJS.ProcessEnv): CommandTelemetry {
  const resource = resourceOf({
    'service.name': 'murmur',
    'service.version': packageVersion(),
    ...parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES),
    ...(env.OTEL_SERVICE_NAME?.trim() ? { 'service.name': env.OTEL_SERVICE_NAME.trim() } : {}),
  });
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const captureContent = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
  return {
    tracing: { provider, captureContent },
    shutdown: async (deadlineMs) => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
        timer.unref();
      });
      await Promise.race([provider.shutdown().catch(() => undefined), deadline]);
      clearTimeout(timer);
    },
  };
}
