import { ProxyTracerProvider, trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { METER_NAME } from '../domain/metric-catalogue';

/** The service's tracer of each registered tracer provider. */
const TRACERS = new WeakMap<TracerProvider, Tracer>();

/**
 * The service's tracer: the same name as its meter. Looked up once per registered provider
 * (a span per activity and per outbound call asks for it; the provider's own lookup builds
 * a key string each time). Before any provider is registered, the API's proxy tracer, which
 * binds to the provider registered later.
 */
export function serviceTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (!(provider instanceof ProxyTracerProvider)) return provider.getTracer(METER_NAME);
  const registered = provider.getDelegate();
  let tracer = TRACERS.get(registered);
  if (tracer === undefined) {
    tracer = provider.getDelegateTracer(METER_NAME);
    if (tracer === undefined) return provider.getTracer(METER_NAME);
    TRACERS.set(registered, tracer);
  }
  return tracer;
}

/**
 * Attributes the service puts on its spans (OpenTelemetry naming: namespaced, snake case).
 * The account ID is personal data: the privacy processors drop it unless
 * TELEMETRY_ACCOUNT_IDS allows it (privacy-rules.ts).
 */
export const SPAN_ATTRIBUTES = {
  requestId: 'provisioning.request_id',
  correlationId: 'provisioning.correlation_id',
  connector: 'provisioning.connector',
  accountId: 'provisioning.account_id',
  source: 'provisioning.source',
  /** How a submission ended: started, duplicate, invalid, unknown connector, conflict. */
  submission: 'provisioning.submission',
} as const;
