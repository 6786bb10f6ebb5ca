import { chunk } from '../../domain/chunk';
import { ProvisioningError } from '../../domain/errors';
import { backoffDelay } from '../http/backoff';
import { parseRetryAfter } from '../http/retry-after';
import type { GraphAnswer, GraphErrorContext } from './graph-error-mapper';
import type { GraphHttp } from './graph-http';
import { isRecord } from './graph-objects';

/** graph-behaviour.md: a `$batch` carries at most 20 sub-requests. */
export const BATCH_LIMIT = 20;

/** One sub-request; `url` is relative to `/v1.0` ("/groups/g1/members/$ref"). */
export interface BatchRequest {
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  body?: unknown;
}

export interface BatchResponse extends GraphAnswer {
  id: string;
  /**
   * An earlier send of this sub-request may have been applied without an answer saying so
   * (the envelope's answer was lost, or a round answered it 503/504).
   */
  maybeAppliedBefore: boolean;
}

export interface BatchOptions {
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** Rounds of re-sending sub-requests answered 503/504. */
  maxRetries: number;
  /** How long throttled sub-requests may wait in all before their 429 is the answer (default 120 s). */
  maxThrottleWaitMs?: number;
  random?: () => number;
}

const FAILED = new Set([503, 504]);
const BACKOFF = { baseDelayMs: 200, maxDelayMs: 10_000 };

/** The `POST /$batch` body: JSON sub-requests carry their content type (graph-behaviour.md). */
export function toBatchEnvelope(requests: readonly BatchRequest[]): { requests: unknown[] } {
  return {
    requests: requests.map((request) => ({
      id: request.id,
      method: request.method,
      url: request.url,
      ...(request.body === undefined
        ? {}
        : { headers: { 'Content-Type': 'application/json' }, body: request.body }),
    })),
  };
}

/** The sub-responses of one `$batch` answer, headers lowercased, described for messages. */
export function readBatchResponses(
  body: unknown,
  requests: readonly BatchRequest[],
  root: string,
): BatchResponse[] {
  if (!isRecord(body) || !Array.isArray(body.responses)) {
    throw new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      'POST /$batch answered without a "responses" list',
    );
  }
  const byId = new Map(requests.map((request) => [request.id, request]));
  return body.responses.filter(isRecord).flatMap((response) => {
    const id = typeof response.id === 'string' ? response.id : String(response.id);
    const request = byId.get(id);
    if (request === undefined || typeof response.status !== 'number') return [];
    const headers: Record<string, string> = {};
    if (isRecord(response.headers)) {
      for (const [name, value] of Object.entries(response.headers))
        headers[name.toLowerCase()] = String(value);
    }
    return [
      {
        id,
        status: response.status,
        headers,
        body: response.body,
        describe: `${request.method} ${root}${request.url} (in $batch)`,
        maybeAppliedBefore: false,
      },
    ];
  });
}

/**
 * Sends sub-requests as JSON `$batch` envelopes of up to 20, in parallel (the transport's
 * gate keeps the concurrency limit). Each sub-response has its own status (graph-behaviour.md:
 * Batching): a throttled one (429) pauses every caller of the target for its `Retry-After`
 * and is re-sent alone for as long as the throttle wait allows; one answered 503/504 is
 * re-sent up to `maxRetries` rounds. Returns the last answer for every request, by id.
 */
export async function sendBatch(
  http: GraphHttp,
  requests: readonly BatchRequest[],
  options: BatchOptions,
  context: GraphErrorContext,
): Promise<Map<string, BatchResponse>> {
  const results = new Map<string, BatchResponse>();
  const byId = new Map(requests.map((request) => [request.id, request]));
  const maybeApplied = new Set<string>();
  const maxThrottleWaitMs = options.maxThrottleWaitMs ?? 120_000;
  let throttledWaitMs = 0;
  let failedRounds = 0;
  let pending = [...requests];
  for (let round = 0; pending.length > 0; round++) {
    const answers = await Promise.all(
      chunk(pending, BATCH_LIMIT).map(async (part) => {
        const result = await http.expect(
          { method: 'POST', path: '/$batch', json: toBatchEnvelope(part) },
          [200],
          context,
        );
        if (result.maybeAppliedBefore) for (const request of part) maybeApplied.add(request.id);
        throttledWaitMs += result.throttledWaitMs;
        return readBatchResponses(result.body, part, http.root);
      }),
    );
    let throttleMs = 0;
    let failedMs = 0;
    const throttled: BatchRequest[] = [];
    const failed: BatchRequest[] = [];
    const answered = new Set<string>();
    for (const response of answers.flat()) {
      answered.add(response.id);
      results.set(response.id, {
        ...response,
        maybeAppliedBefore: maybeApplied.has(response.id),
        throttledWaitMs,
        throttledAnswers: round + 1,
      });
      const request = byId.get(response.id);
      if (request === undefined) continue;
      const hinted = parseRetryAfter(response.headers['retry-after'], options.now());
      const backoff = backoffDelay(round, BACKOFF, options.random ?? Math.random);
      if (response.status === 429) {
        throttled.push(request);
        throttleMs = Math.max(throttleMs, hinted ?? backoff);
      } else if (FAILED.has(response.status)) {
        failed.push(request);
        failedMs = Math.max(failedMs, hinted ?? backoff);
        if (hinted === undefined) maybeApplied.add(response.id);
      }
    }
    const unanswered = pending.filter((request) => !answered.has(request.id));
    if (unanswered.length > 0) {
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `POST ${http.root}/$batch answered no sub-response for ${unanswered.map((r) => `${r.method} ${r.url}`).join(', ')}`,
      );
    }
    pending = [];
    if (throttled.length > 0 && throttledWaitMs + throttleMs <= maxThrottleWaitMs) {
      // The target throttles the app, not this envelope: every caller of the target waits.
      http.throttle(throttleMs);
      throttledWaitMs += throttleMs;
      pending.push(...throttled);
    }
    if (failed.length > 0 && failedRounds < options.maxRetries) {
      failedRounds++;
      pending.push(...failed);
    }
    if (pending.length === 0) break;
    if (pending.length > throttled.length || throttled.length === 0) await options.sleep(failedMs);
  }
  return results;
}
