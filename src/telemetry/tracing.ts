import { trace, type Tracer } from '@opentelemetry/api';
import { METER_NAME } from '../domain/metric-catalogue';

/** The service's tracer: the same name as its meter. */
export function serviceTracer(): Tracer {
  return trace.getTracer(METER_NAME);
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
