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
}

export interface BatchOptions {
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** Rounds of re-sending throttled sub-requests. */
  maxRetries: number;
  random?: () => number;
}

const TRANSIENT = new Set([429, 503, 504]);
const BACKOFF = { baseDelayMs: 200, maxDelayMs: 10_000 };

/**
 * Groups requests into envelopes of at most `size`.
 *
 * @example
 * chunk([1, 2, 3], 2); // [[1, 2], [3]]
 */
export function chunk<T>(items: readonly T[], size: number = BATCH_LIMIT): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    chunks.push(items.slice(start, start + size));
  return chunks;
}

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
      },
    ];
  });
}

/**
 * Sends sub-requests as JSON `$batch` envelopes of up to 20, in parallel (the transport's
 * pool keeps the concurrency limit). Each sub-response has its own status: throttled ones
 * (429, 503, 504) are re-sent alone after their `Retry-After`, up to `maxRetries` rounds
 * (graph-behaviour.md: Batching). Returns the last answer for every request, by id.
 */
export async function sendBatch(
  http: GraphHttp,
  requests: readonly BatchRequest[],
  options: BatchOptions,
  context: GraphErrorContext,
): Promise<Map<string, BatchResponse>> {
  const results = new Map<string, BatchResponse>();
  const byId = new Map(requests.map((request) => [request.id, request]));
  let pending = [...requests];
  for (let round = 0; pending.length > 0; round++) {
    const answers = await Promise.all(
      chunk(pending).map(async (part) => {
        const result = await http.expect(
          { method: 'POST', path: '/$batch', json: toBatchEnvelope(part) },
          [200],
          context,
        );
        return readBatchResponses(result.body, part, http.root);
      }),
    );
    let waitMs = 0;
    const again: BatchRequest[] = [];
    const answered = new Set<string>();
    for (const response of answers.flat()) {
      results.set(response.id, response);
      answered.add(response.id);
      const request = byId.get(response.id);
      if (!TRANSIENT.has(response.status) || request === undefined) continue;
      again.push(request);
      const hinted = parseRetryAfter(response.headers['retry-after'], options.now());
      waitMs = Math.max(
        waitMs,
        hinted ?? backoffDelay(round, BACKOFF, options.random ?? Math.random),
      );
    }
    const unanswered = pending.filter((request) => !answered.has(request.id));
    if (unanswered.length > 0) {
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `POST ${http.root}/$batch answered no sub-response for ${unanswered.map((r) => `${r.method} ${r.url}`).join(', ')}`,
      );
    }
    if (again.length === 0 || round >= options.maxRetries) break;
    await options.sleep(waitMs);
    pending = again;
  }
  return results;
}
