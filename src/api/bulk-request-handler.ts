import type { InvocationContext } from '@azure/functions';
import type { PoisonReason } from '../telemetry/service-metrics';
import type { ApiDeps } from './api-deps';
import { withBulkRequestIds } from './bulk-request-ids';
import { redactBulkMessage } from './redact-bulk-message';
import { submitProvisioningRequest } from './submit-request';

/** Dequeues before the handler gives a message up: its failing requests go to the poison queue, redacted. */
export const MAX_DEQUEUE_COUNT = 5;

/**
 * The Functions host's own limit (host.json `queues.maxDequeueCount`), above the handler's:
 * a message the host gives up is moved to `<queue>-poison` as it is, password and all, so the
 * handler gives it up first, redacted, and tries that again on each later dequeue while the
 * poison queue cannot be written. On the host's last dequeue a failure is still thrown: the
 * host's unredacted copy (the `poison-waiting` alert) loses nothing, dropping it would.
 */
export const HOST_MAX_DEQUEUE_COUNT = 10;

/** A request of the message that did not start: why, and whether it may pass next time. */
interface Failure {
  kind: PoisonReason;
  reason: string;
  request: unknown;
  index: number | undefined;
  error?: unknown;
}

/**
 * The bulk queue trigger: each message is one provisioning request, as for
 * `POST /api/requests`, or a JSON array of them. A request naming no requestId gets one
 * derived from the queue message's id (`bulkRequestId`), so a redelivered message is a
 * duplicate, never a second run. A request that can never succeed (not a JSON object,
 * invalid, unknown connector, reused requestId) goes to the poison queue with the reason; a
 * failure that may pass makes the runtime deliver the message again (the requests it already
 * started are duplicates then), and after the fifth dequeue each request still failing goes
 * to the poison queue with its last failure as reason. A password in a message is moved to
 * the SecretStore like one sent over HTTP; every secret is redacted in the poison copy.
 */
export function bulkRequestHandler(deps: ApiDeps) {
  const handle = handleBulkMessage(deps);
  return async (message: unknown, context: InvocationContext): Promise<void> => {
    const dequeueCount = dequeueCountOf(context);
    try {
      await handle(message, context);
    } catch (error) {
      if (dequeueCount >= HOST_MAX_DEQUEUE_COUNT) {
        // Named by id, never its content: the host moves it to its poison queue as it is.
        context.error(
          `bulk message ${messageIdOf(context) ?? '(no id)'} failed on dequeue ${dequeueCount}, ` +
            `the host's last: the host moves it to its poison queue unredacted (delete it ` +
            `there once handled): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      throw error;
    }
  };
}

function handleBulkMessage(deps: ApiDeps) {
  return async (message: unknown, context: InvocationContext): Promise<void> => {
    const services = await deps.services();
    const dequeueCount = dequeueCountOf(context);
    const messageId = messageIdOf(context);
    if (messageId === undefined) {
      context.warn(
        'bulk message without a message id: a request naming no requestId gets a new one',
      );
    }
    const parsed = typeof message === 'string' ? parseJson(message) : message;
    const body = messageId === undefined ? parsed : withBulkRequestIds(parsed, messageId);
    const failures: Failure[] = [];
    if (Array.isArray(body)) {
      if (body.length === 0) {
        failures.push({
          kind: 'invalid',
          reason: 'the message holds no request',
          request: body,
          index: undefined,
        });
      }
      for (const [index, request] of body.entries()) {
        const failure = await submitOne(request, index);
        if (failure !== undefined) failures.push(failure);
      }
    } else {
      const failure = await submitOne(body, undefined);
      if (failure !== undefined) failures.push(failure);
    }
    const transient = failures.find((failure) => failure.error !== undefined);
    // Not the last dequeue: the runtime delivers the message again, and every failure is
    // judged again then (a request already started is a duplicate), so nothing is poisoned twice.
    if (transient !== undefined && dequeueCount < MAX_DEQUEUE_COUNT) throw transient.error;
    let unsent = 0;
    for (const failure of failures) {
      const where = failure.index === undefined ? '' : `request ${failure.index}: `;
      try {
        await services.bulkQueue.sendPoison({
          reason: `${where}${failure.reason}`,
          message: redactBulkMessage(failure.request),
          ...(messageId === undefined ? {} : { messageId }),
          ...(failure.index === undefined ? {} : { index: failure.index }),
          dequeueCount,
          at: deps.now().toISOString(),
        });
      } catch (error) {
        // Never the message itself: its poison copy is what carries it redacted.
        unsent++;
        context.error(
          `bulk message ${messageId ?? '(no id)'}: ${where}could not be moved to the poison ` +
            `queue: ${error instanceof Error ? error.message : String(error)}`,
        );
        continue;
      }
      services.metrics.bulkPoisoned(failure.kind);
      context.warn(`bulk request moved to the poison queue: ${where}${failure.reason}`);
    }
    // Delivered again (its limit is above the handler's): every failure is judged and
    // poisoned again then, a request already started a duplicate; on the host's last
    // dequeue the host keeps it in its own poison queue instead (see HOST_MAX_DEQUEUE_COUNT).
    if (unsent > 0) {
      throw new Error(
        `bulk message ${messageId ?? '(no id)'}: ${unsent} poison cop${unsent === 1 ? 'y' : 'ies'} not sent; delivered again`,
      );
    }

    async function submitOne(
      request: unknown,
      index: number | undefined,
    ): Promise<Failure | undefined> {
      const fail = (kind: PoisonReason, reason: string, error?: unknown): Failure => ({
        kind,
        reason,
        request,
        index,
        ...(error === undefined ? {} : { error }),
      });
      if (typeof request !== 'object' || request === null || Array.isArray(request)) {
        return fail(
          'not_json',
          index === undefined ? 'the message is not a JSON object' : 'not a JSON object',
        );
      }
      try {
        const outcome = await submitProvisioningRequest(
          request,
          services,
          deps.orchestrations(context),
          {
            source: 'queue',
            now: deps.now(),
          },
        );
        switch (outcome.kind) {
          case 'invalid':
            return fail(
              'invalid',
              `invalid request: ${outcome.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
            );
          case 'unknown connector':
            return fail('unknown_connector', `unknown connector "${outcome.connector}"`);
          case 'conflict':
            return fail('request_conflict', outcome.error.message);
          default:
            context.log(`bulk request ${outcome.requestId}: ${outcome.kind}`);
            return undefined;
        }
      } catch (error) {
        return fail(
          'failed_repeatedly',
          `failed ${dequeueCount} times, last: ${error instanceof Error ? error.message : String(error)}`,
          error,
        );
      }
    }
  };
}

function dequeueCountOf(context: InvocationContext): number {
  return Number(context.triggerMetadata?.dequeueCount ?? 1);
}

/** The queue message's id, as the trigger gives it (`triggerMetadata.id`, the local host alike). */
function messageIdOf(context: InvocationContext): string | undefined {
  const id = context.triggerMetadata?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
