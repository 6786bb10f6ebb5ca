import { chunk } from '../../domain/chunk';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { parseRetryAfter } from '../http/retry-after';
import {
  failedWait,
  isThrottled,
  startProgress,
  throttledWait,
  throttledWaitOf,
  type RetryLimits,
} from '../http/retry-policy';
import type { GraphAnswer, GraphErrorContext } from './graph-error-mapper';
import type { GraphHttp } from './graph-http';
import { isRecord } from './graph-objects';
import { quotaNamed } from './graph-quota';

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
  /** How long this sub-request waited because Graph throttled (its own 429s and its envelopes'). */
  throttledWaitMs: number;
  /** How many 429 answers this sub-request met, its envelopes' included. */
  throttledAnswers: number;
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
      // Graph ran the envelope it accepted: any of its writes may have been applied.
      { details: { maybeApplied: true } },
    );
  }
  const byId = new Map(requests.map((request) => [request.id, request]));
  return body.responses.filter(isRecord).flatMap((response) => {
    const id = typeof response.id === 'string' ? response.id : String(response.id);
    const request = byId.get(id);
    if (request === undefined || typeof response.status !== 'number') return [];
    return [
      {
        id,
        status: response.status,
        headers: lowerCased(response.headers),
        body: response.body,
        describe: `${request.method} ${root}${request.url} (in $batch)`,
        maybeAppliedBefore: false,
        throttledWaitMs: 0,
        throttledAnswers: 0,
      },
    ];
  });
}

/** A sub-request that got no final answer: its envelope failed (or left it out) before it had one. */
export interface UnansweredRequest {
  id: string;
  /**
   * How its envelope ended; `details.maybeApplied` when that send, or an earlier one whose
   * answer was lost (a lost envelope, a 503), may have been applied all the same.
   */
  error: ProvisioningError;
}

/** Every sub-request's final answer, and those whose envelope failed before they had one. */
export interface SettledBatch {
  answers: Map<string, BatchResponse>;
  unanswered: UnansweredRequest[];
}

/**
 * As {@link sendBatchSettled}, for reads (writes go through `sendBatchSettled`, whose
 * unanswered writes may have been applied): an envelope that fails fails the whole read, with
 * its error, however many other sub-requests were answered. A read changes nothing, so its
 * error never says it may have been applied (`details.maybeApplied`, which the envelope's
 * failure carries for the writes it may hold): a caller must not take a failed read for a
 * lost write (DESIGN invariant 11).
 */
export async function sendBatch(
  http: GraphHttp,
  requests: readonly BatchRequest[],
  options: BatchOptions,
  context: GraphErrorContext,
): Promise<Map<string, BatchResponse>> {
  const { answers, unanswered } = await sendBatchSettled(http, requests, options, context);
  const first = unanswered[0];
  if (first === undefined) return answers;
  throw failedRead(first.error);
}

/** A read's error without the "may have been applied" a write's would carry. */
function failedRead(error: ProvisioningError): ProvisioningError {
  if (error.details?.maybeApplied === undefined) return error;
  const details = Object.fromEntries(
    Object.entries(error.details).filter(([key]) => key !== 'maybeApplied'),
  );
  return new ProvisioningError(error.code, error.message, {
    retryable: error.retryable,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.object === undefined ? {} : { object: error.object }),
    ...(Object.keys(details).length === 0 ? {} : { details }),
    cause: error,
  });
}

/**
 * Sends sub-requests as JSON `$batch` envelopes of up to 20, in parallel (the transport's
 * gate keeps the concurrency limit). Each sub-response has its own status (graph-behaviour.md:
 * Batching): a throttled one (429) counts as throttling for the target's gate, pauses every
 * caller of the target for its `Retry-After` (else backoff with jitter) and is re-sent alone
 * for as long as its throttle wait stays within `maxThrottleWaitMs`; one answered 503/504
 * is re-sent up to `maxRetries` rounds. Returns the last answer for every request, by id.
 * An envelope that fails (a 504, a refused send, a 429 past its budget) ends the sending:
 * the answers Graph gave stand, every other envelope's included (a 204 of round 1 next to a
 * 429 whose round 2 failed: DESIGN invariant 9), and only that envelope's sub-requests are
 * unanswered.
 */
export async function sendBatchSettled(
  http: GraphHttp,
  requests: readonly BatchRequest[],
  options: BatchOptions,
  context: GraphErrorContext,
): Promise<SettledBatch> {
  const results = new Map<string, BatchResponse>();
  const byId = new Map(requests.map((request) => [request.id, request]));
  const progress = new Map(requests.map((request) => [request.id, startProgress()]));
  const maxThrottleWaitMs = options.maxThrottleWaitMs ?? 120_000;
  const limits: RetryLimits = {
    maxRetries: options.maxRetries,
    // One Retry-After beyond the whole budget cannot be waited for anyway.
    maxRetryAfterMs: maxThrottleWaitMs,
    maxThrottleWaitMs,
    backoff: BACKOFF,
    random: options.random ?? Math.random,
  };
  let pending = [...requests];
  while (pending.length > 0) {
    const parts = chunk(pending, BATCH_LIMIT);
    const settled = await Promise.allSettled(
      parts.map(async (part) => {
        const result = await http.expect(
          {
            method: 'POST',
            path: '/$batch',
            json: toBatchEnvelope(part),
            throttledInside: hasThrottledPart,
          },
          [200],
          context,
        );
        for (const request of part) {
          const sub = progress.get(request.id)!;
          sub.maybeApplied ||= result.maybeAppliedBefore;
          sub.throttledWaitMs += result.throttledWaitMs;
          sub.throttledAnswers += result.throttledAnswers;
        }
        return readBatchResponses(result.body, part, http.root);
      }),
    );
    const answers: BatchResponse[] = [];
    const lost: { requests: readonly BatchRequest[]; error: ProvisioningError }[] = [];
    for (const [index, outcome] of settled.entries()) {
      if (outcome.status === 'rejected') {
        if (!isProvisioningError(outcome.reason)) throw outcome.reason;
        lost.push({ requests: parts[index]!, error: outcome.reason });
        continue;
      }
      answers.push(...outcome.value);
      const answered = new Set(outcome.value.map((response) => response.id));
      const silent = parts[index]!.filter((request) => !answered.has(request.id));
      if (silent.length > 0) {
        // The envelope was accepted and run: a sub-request it did not answer may have been
        // applied, so only a read can tell (as for a lost answer).
        const error = new ProvisioningError(
          'TARGET_RESPONSE_INVALID',
          `POST ${http.root}/$batch answered no sub-response for ${silent.map((r) => `${r.method} ${r.url}`).join(', ')}`,
          { details: { maybeApplied: true } },
        );
        lost.push({ requests: silent, error });
      }
    }
    let pauseMs = 0;
    let failedMs = 0;
    // 429s of the quota wait in its bucket; any other throttling pauses every caller.
    let pauseAll = false;
    let throttledAnswers = 0;
    const throttled: BatchRequest[] = [];
    const failed: BatchRequest[] = [];
    for (const answer of answers) {
      // The one reading of this sub-response's Retry-After: the quota, the retry rule and
      // the caller's message all take it from here.
      const hinted = parseRetryAfter(answer.headers['retry-after'], options.now());
      const response = hinted === undefined ? answer : { ...answer, retryAfterMs: hinted };
      const ofQuota = http.learn(response, byId.get(response.id)!);
      // graph-behaviour.md: a 429, or a 503 that says how long to wait, is Graph throttling
      // the app: every caller pauses, and it is waited out on the throttle budget, not on
      // maxRetries. A 503 (either kind) may come after the directory committed the change.
      const throttling = isThrottled(response.status, hinted);
      if (throttling && !ofQuota) pauseAll = true;
      const sub = progress.get(response.id)!;
      const maybeAppliedBefore = sub.maybeApplied;
      if (throttling) throttledAnswers++;
      const wait = throttling
        ? throttledWait(response.status, hinted, 0, sub, limits)
        : failedWait(response.status, hinted, sub, limits);
      // A sub-request re-sent gets this entry replaced by its next answer.
      results.set(response.id, {
        ...response,
        maybeAppliedBefore,
        throttledWaitMs: throttledWaitOf(sub),
        throttledAnswers: sub.throttledAnswers,
        maxThrottleWaitMs,
      });
      if (wait === undefined) continue;
      if (throttling) {
        throttled.push(byId.get(response.id)!);
        pauseMs = Math.max(pauseMs, wait);
      } else {
        failed.push(byId.get(response.id)!);
        failedMs = Math.max(failedMs, wait);
      }
    }
    // Graph throttles the app, not this envelope: every caller of the target waits.
    if (pauseAll) http.throttle(pauseMs);
    if (throttledAnswers > 0) http.throttledInside(throttledAnswers);
    if (lost.length > 0)
      return { answers: results, unanswered: unansweredOf(lost, results, progress) };
    pending = [...throttled, ...failed];
    if (failed.length > 0) await options.sleep(failedMs);
  }
  return { answers: results, unanswered: [] };
}

/**
 * The sub-requests of the envelopes that failed, each with its envelope's error, saying it
 * may have been applied where an earlier send of it may have been; an earlier round's answer
 * (a 429 re-sent) is no final answer and leaves `answers`.
 */
function unansweredOf(
  lost: readonly { requests: readonly BatchRequest[]; error: ProvisioningError }[],
  answers: Map<string, BatchResponse>,
  progress: ReadonlyMap<string, { maybeApplied: boolean }>,
): UnansweredRequest[] {
  return lost.flatMap(({ requests, error }) =>
    requests.map((request) => {
      answers.delete(request.id);
      const earlier = progress.get(request.id)!.maybeApplied;
      const said = error.details?.maybeApplied === true;
      return {
        id: request.id,
        error: earlier && !said ? error.withDetails({ maybeApplied: true }) : error,
      };
    }),
  );
}

/**
 * A `$batch` answer some of whose sub-responses are throttling (a 429 other than the quota's,
 * which its bucket accounts for, or a 503 with Retry-After): the gate counts it as throttled.
 */
function hasThrottledPart(result: { body: unknown }): boolean {
  return (
    isRecord(result.body) &&
    Array.isArray(result.body.responses) &&
    result.body.responses.some((response) => {
      if (!isRecord(response) || typeof response.status !== 'number') return false;
      const headers = lowerCased(response.headers);
      // Whether it says how long to wait: the clock does not matter to that.
      const throttling = isThrottled(response.status, parseRetryAfter(headers['retry-after'], 0));
      return throttling && (response.status !== 429 || quotaNamed(headers) === undefined);
    })
  );
}

/** A sub-response's headers (any JSON value) by lowercased name. */
function lowerCased(headers: unknown): Record<string, string> {
  if (!isRecord(headers)) return {};
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
}
