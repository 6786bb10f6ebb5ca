import type { InvocationContext } from '@azure/functions';
import type { PoisonReason } from '../telemetry/service-metrics';
import type { ApiDeps } from './api-deps';
import { submitProvisioningRequest } from './submit-request';

/** Dequeues before a message is given up (host.json `queues.maxDequeueCount`). */
export const MAX_DEQUEUE_COUNT = 5;

/**
 * The bulk queue trigger: each message is one provisioning request, as for
 * `POST /api/requests`. A message that can never succeed (not JSON, invalid, unknown
 * connector, reused requestId) goes to the poison queue at once with the reason; a
 * failure that may pass is retried by the runtime, and after the fifth dequeue the
 * message goes to the poison queue with the last failure as its reason. A password in a
 * message is moved to the SecretStore like one sent over HTTP, and redacted in the
 * poison copy.
 */
export function bulkRequestHandler(deps: ApiDeps) {
  return async (message: unknown, context: InvocationContext): Promise<void> => {
    const services = await deps.services();
    const dequeueCount = Number(context.triggerMetadata?.dequeueCount ?? 1);
    const poison = async (kind: PoisonReason, reason: string) => {
      await services.bulkQueue.sendPoison({
        reason,
        message: redactPassword(message),
        dequeueCount,
        at: deps.now().toISOString(),
      });
      services.metrics.bulkPoisoned(kind);
      context.warn(`bulk request moved to the poison queue: ${reason}`);
    };
    const body = typeof message === 'string' ? parseJson(message) : message;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      await poison('not_json', 'the message is not a JSON object');
      return;
    }
    try {
      const outcome = await submitProvisioningRequest(
        body,
        services,
        deps.orchestrations(context),
        {
          source: 'queue',
          now: deps.now(),
        },
      );
      switch (outcome.kind) {
        case 'invalid':
          await poison(
            'invalid',
            `invalid request: ${outcome.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
          );
          return;
        case 'unknown connector':
          await poison('unknown_connector', `unknown connector "${outcome.connector}"`);
          return;
        case 'conflict':
          await poison('request_conflict', outcome.error.message);
          return;
        default:
          context.log(`bulk request ${outcome.requestId}: ${outcome.kind}`);
      }
    } catch (error) {
      if (dequeueCount < MAX_DEQUEUE_COUNT) throw error;
      await poison(
        'failed_repeatedly',
        `failed ${dequeueCount} times, last: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function redactPassword(message: unknown): unknown {
  const body = typeof message === 'string' ? (parseJson(message) ?? message) : message;
  if (typeof body === 'object' && body !== null && 'password' in body) {
    return { ...body, password: '[redacted]' };
  }
  if (typeof body === 'string' && /password/i.test(body)) {
    return '[not JSON; withheld because it may contain a password]';
  }
  return body;
}
