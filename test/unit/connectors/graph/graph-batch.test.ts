import { describe, expect, it } from 'vitest';
import { chunk } from '../../../../src/domain/chunk';
import {
  BATCH_LIMIT,
  readBatchResponses,
  sendBatch,
  sendBatchSettled,
  toBatchEnvelope,
  type BatchRequest,
} from '../../../../src/connectors/graph/graph-batch';
import { mapGraphError } from '../../../../src/connectors/graph/graph-error-mapper';
import { ProvisioningError } from '../../../../src/domain/errors';
import { GraphHttp } from '../../../../src/connectors/graph/graph-http';
import type {
  HttpCall,
  HttpResult,
  HttpTransport,
} from '../../../../src/connectors/http/transport';

interface SubAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A transport that answers `$batch` envelopes with `answer(sub-request, round)`; `lost` says
 * which rounds' envelopes met a lost answer before (the transport's `maybeAppliedBefore`).
 * `throttledInside` records how the real transport's gate would count each envelope.
 */
function fakeGraph(
  answer: (request: { id: string; url: string }, round: number) => SubAnswer,
  lost: (round: number) => boolean = () => false,
) {
  const envelopes: { id: string; url: string }[][] = [];
  const pauses: number[] = [];
  const throttledInside: boolean[] = [];
  const transport = {
    send: async (call: HttpCall): Promise<HttpResult> => {
      const requests = (call.json as { requests: { id: string; url: string }[] }).requests;
      envelopes.push(requests);
      const round = envelopes.length;
      const responses = requests.map((request) => ({ id: request.id, ...answer(request, round) }));
      const result: HttpResult = {
        status: 200,
        headers: {},
        body: { responses },
        text: '',
        describe: 'POST /$batch',
        attempts: 1,
        maybeAppliedBefore: lost(round),
        throttledWaitMs: 0,
        throttledAnswers: 0,
      };
      throttledInside.push(call.throttledInside?.(result) ?? false);
      return result;
    },
    throttle: (ms: number) => void pauses.push(ms),
    // Telemetry's count of throttled sub-responses: not what this file looks at.
    throttledInside: () => undefined,
  } as unknown as HttpTransport;
  return {
    http: new GraphHttp('https://graph.example', transport),
    envelopes,
    pauses,
    throttledInside,
  };
}

const context = {
  connector: 'entra',
  task: 'writeMemberships' as const,
  subject: 'writes',
  object: 'x',
  notFound: 'GROUP_NOT_FOUND' as const,
};

function requests(count: number): BatchRequest[] {
  return Array.from({ length: count }, (_, i) => ({
    id: String(i),
    method: 'POST' as const,
    url: `/groups/g${i}/members/$ref`,
    body: { '@odata.id': 'https://graph.example/v1.0/directoryObjects/u1' },
  }));
}

describe('batch building', () => {
  it('chunks by 20', () => {
    expect(chunk(requests(45), BATCH_LIMIT).map((part) => part.length)).toEqual([20, 20, 5]);
  });

  it('gives sub-requests with a body their JSON content type', () => {
    const envelope = toBatchEnvelope([
      ...requests(1),
      { id: 'd', method: 'DELETE', url: '/groups/g/members/u/$ref' },
    ]);
    expect(envelope.requests).toEqual([
      {
        id: '0',
        method: 'POST',
        url: '/groups/g0/members/$ref',
        headers: { 'Content-Type': 'application/json' },
        body: { '@odata.id': 'https://graph.example/v1.0/directoryObjects/u1' },
      },
      { id: 'd', method: 'DELETE', url: '/groups/g/members/u/$ref' },
    ]);
  });

  it('reads sub-responses in any order with lowercased headers', () => {
    const responses = readBatchResponses(
      {
        responses: [
          { id: '1', status: 429, headers: { 'Retry-After': '3' } },
          { id: '0', status: 204 },
        ],
      },
      requests(2),
      'https://graph.example/v1.0',
    );
    expect(
      responses.map((response) => [response.id, response.status, response.headers['retry-after']]),
    ).toEqual([
      ['1', 429, '3'],
      ['0', 204, undefined],
    ]);
    expect(responses[1]?.describe).toBe(
      'POST https://graph.example/v1.0/groups/g0/members/$ref (in $batch)',
    );
  });
});

describe('sendBatch', () => {
  it('sends 50 writes in 3 envelopes', async () => {
    const { http, envelopes } = fakeGraph(() => ({ status: 204 }));
    const answers = await sendBatch(
      http,
      requests(50),
      { sleep: async () => undefined, now: () => 0, maxRetries: 3 },
      context,
    );
    expect(envelopes).toHaveLength(3);
    expect([...answers.values()].every((answer) => answer.status === 204)).toBe(true);
  });

  it('re-sends only the throttled sub-requests, after pausing every caller for the longest Retry-After', async () => {
    const waits: number[] = [];
    const { http, envelopes, pauses, throttledInside } = fakeGraph((request, round) =>
      round === 1 && (request.id === '3' || request.id === '7')
        ? { status: 429, headers: { 'Retry-After': request.id === '3' ? '2' : '5' } }
        : { status: 204 },
    );
    const answers = await sendBatch(
      http,
      requests(10),
      { sleep: async (ms) => void waits.push(ms), now: () => 0, maxRetries: 3 },
      context,
    );
    expect(envelopes.map((envelope) => envelope.map((request) => request.id))).toEqual([
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
      ['3', '7'],
    ]);
    expect(pauses).toEqual([5000]);
    expect(waits).toEqual([]);
    // The envelope with 429s inside counts as throttled for the gate's concurrency limit.
    expect(throttledInside).toEqual([true, false]);
    expect(answers.get('7')).toMatchObject({
      status: 204,
      throttledAnswers: 1,
      throttledWaitMs: 5000,
      maybeAppliedBefore: false,
    });
    expect(answers.get('0')).toMatchObject({
      status: 204,
      throttledAnswers: 0,
      throttledWaitMs: 0,
    });
  });

  it('returns the last throttled answer once the throttle wait is spent', async () => {
    const { http, envelopes } = fakeGraph(() => ({ status: 429, headers: { 'retry-after': '1' } }));
    const answers = await sendBatch(
      http,
      requests(2),
      { sleep: async () => undefined, now: () => 0, maxRetries: 0, maxThrottleWaitMs: 2_500 },
      context,
    );
    expect(envelopes).toHaveLength(3);
    const left = answers.get('0')!;
    expect(left).toMatchObject({ status: 429, throttledAnswers: 3, throttledWaitMs: 2_000 });
    const error = mapGraphError(left, context);
    expect(error).toMatchObject({
      code: 'TARGET_THROTTLED',
      retryable: false,
      details: { throttledWaitMs: 2_000, throttledAnswers: 3 },
    });
    expect(error.message).toContain(
      '(throttled: waited 2 s over 3 answers 429; the limit is maxThrottleWaitSeconds = 3)',
    );
  });

  it('backs off without a Retry-After, and gives up on one beyond the budget at once', async () => {
    const { http, envelopes, pauses } = fakeGraph((request, round) =>
      request.id === '0'
        ? round === 1
          ? { status: 429 }
          : { status: 204 }
        : { status: 429, headers: { 'retry-after': '3600' } },
    );
    const answers = await sendBatch(
      http,
      requests(2),
      { sleep: async () => undefined, now: () => 0, maxRetries: 0, random: () => 0 },
      context,
    );
    expect(envelopes.map((envelope) => envelope.map((request) => request.id))).toEqual([
      ['0', '1'],
      ['0'],
    ]);
    expect(pauses).toEqual([100]);
    expect(answers.get('0')?.status).toBe(204);
    expect(answers.get('1')).toMatchObject({
      status: 429,
      throttledAnswers: 1,
      throttledWaitMs: 0,
    });
  });

  it('re-sends sub-requests answered 503/504 at most maxRetries rounds, without pausing other callers', async () => {
    const waits: number[] = [];
    const { http, envelopes, pauses } = fakeGraph(() => ({ status: 504 }));
    const answers = await sendBatch(
      http,
      requests(2),
      { sleep: async (ms) => void waits.push(ms), now: () => 0, maxRetries: 2, random: () => 0.5 },
      context,
    );
    expect(envelopes).toHaveLength(3);
    expect(pauses).toEqual([]);
    expect(waits).toEqual([100, 200]);
    expect(answers.get('1')).toMatchObject({ status: 504, maybeAppliedBefore: true });
  });

  it('says which sub-requests an earlier send may have applied (a lost envelope, a 503), not after a 429', async () => {
    const { http } = fakeGraph(
      (request, round) => (round === 1 && request.id === '1' ? { status: 503 } : { status: 204 }),
      (round) => round === 1,
    );
    const answers = await sendBatch(
      http,
      requests(3),
      { sleep: async () => undefined, now: () => 0, maxRetries: 2 },
      context,
    );
    expect([...answers.values()].map((a) => [a.id, a.status, a.maybeAppliedBefore])).toEqual([
      ['0', 204, true],
      ['1', 204, true],
      ['2', 204, true],
    ]);
    const { http: clean } = fakeGraph((request, round) =>
      round === 1 && request.id === '1' ? { status: 503 } : { status: 204 },
    );
    const second = await sendBatch(
      clean,
      requests(2),
      { sleep: async () => undefined, now: () => 0, maxRetries: 2 },
      context,
    );
    expect(second.get('0')?.maybeAppliedBefore).toBe(false);
    expect(second.get('1')?.maybeAppliedBefore).toBe(true);
    const { http: throttledOnce } = fakeGraph((request, round) =>
      round === 1
        ? { status: request.id === '0' ? 429 : 503, headers: { 'retry-after': '1' } }
        : { status: 204 },
    );
    const third = await sendBatch(
      throttledOnce,
      requests(2),
      { sleep: async () => undefined, now: () => 0, maxRetries: 2 },
      context,
    );
    expect(third.get('0')).toMatchObject({ status: 204, maybeAppliedBefore: false });
    expect(third.get('1')).toMatchObject({ status: 204, maybeAppliedBefore: true });
  });

  // This test used to ask that the whole call fail, every write "maybe applied": a caller then
  // lost the 204 Graph gave sub-request 0 (the journal missed a change Graph confirmed, and a
  // lagging read-back failed the step). Graph's answers stand (DESIGN
  // invariant 9); only the sub-request the failed round carried is unanswered.
  it('keeps the answers Graph gave when a later round fails, and leaves only its sub-requests unanswered', async () => {
    // Round 1: sub-request 0 applied (204), 1 throttled; round 2, its envelope is refused
    // whole (the lease ends, a 429 past the budget, a refused connection).
    let round = 0;
    const transport = {
      send: async (call: HttpCall): Promise<HttpResult> => {
        round++;
        if (round === 2) {
          throw new ProvisioningError('ACCOUNT_LEASE_ENDING', 'lease ends', { retryable: true });
        }
        const sent = (call.json as { requests: { id: string }[] }).requests;
        return {
          status: 200,
          headers: {},
          body: {
            responses: sent.map(({ id }) =>
              id === '0'
                ? { id, status: 204 }
                : { id, status: 429, headers: { 'retry-after': '1' } },
            ),
          },
          text: '',
          describe: 'POST /$batch',
          attempts: 1,
          maybeAppliedBefore: false,
          throttledWaitMs: 0,
          throttledAnswers: 0,
        };
      },
      throttle: () => undefined,
      throttledInside: () => undefined,
    } as unknown as HttpTransport;
    const http = new GraphHttp('https://graph.example', transport);
    const options = { sleep: async () => undefined, now: () => 0, maxRetries: 2 };
    const settled = await sendBatchSettled(http, requests(2), options, context);
    expect([...settled.answers.values()].map((a) => [a.id, a.status])).toEqual([['0', 204]]);
    expect(settled.unanswered.map((u) => [u.id, u.error.code, u.error.details])).toEqual([
      // Never sent again, and its one answer was a 429: not applied.
      ['1', 'ACCOUNT_LEASE_ENDING', undefined],
    ]);
    // A read through sendBatch fails whole, with the envelope's error: another sub-request
    // answered makes it no write that may have been applied.
    round = 0;
    const failed = await sendBatch(http, requests(2), options, context).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ProvisioningError);
    expect(failed).toMatchObject({ code: 'ACCOUNT_LEASE_ENDING' });
    expect((failed as ProvisioningError).details?.maybeApplied).toBeUndefined();
  });

  it('keeps the answers of the envelopes that were answered when another envelope of the round fails', async () => {
    // 25 writes: envelope 1 (20) is answered (a 409 among the 204s); envelope 2 (5) meets a
    // gateway 504 the transport gave up on.
    let round = 0;
    const transport = {
      send: async (call: HttpCall): Promise<HttpResult> => {
        round++;
        const sent = (call.json as { requests: { id: string }[] }).requests;
        if (sent.some(({ id }) => id === '20')) {
          throw new ProvisioningError('TARGET_UNAVAILABLE', 'POST /$batch answered 504', {
            retryable: true,
            status: 504,
          });
        }
        return {
          status: 200,
          headers: {},
          body: { responses: sent.map(({ id }) => ({ id, status: id === '3' ? 409 : 204 })) },
          text: '',
          describe: 'POST /$batch',
          attempts: 1,
          maybeAppliedBefore: false,
          throttledWaitMs: 0,
          throttledAnswers: 0,
        };
      },
      throttle: () => undefined,
      throttledInside: () => undefined,
    } as unknown as HttpTransport;
    const settled = await sendBatchSettled(
      new GraphHttp('https://graph.example', transport),
      requests(25),
      { sleep: async () => undefined, now: () => 0, maxRetries: 0 },
      context,
    );
    expect(round).toBe(2);
    expect([...settled.answers.keys()].sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
    expect(settled.answers.get('3')?.status).toBe(409);
    expect(settled.unanswered.map((u) => [u.id, u.error.code])).toEqual(
      ['20', '21', '22', '23', '24'].map((id) => [id, 'TARGET_UNAVAILABLE']),
    );
  });

  /** One $batch sent to a Graph that answers 200 with `body`. */
  function sendAnswered(body: unknown) {
    const transport = {
      send: async (): Promise<HttpResult> => ({
        status: 200,
        headers: {},
        body,
        text: '',
        describe: 'POST /$batch',
        attempts: 1,
        maybeAppliedBefore: false,
        throttledWaitMs: 0,
        throttledAnswers: 0,
      }),
    } as unknown as HttpTransport;
    const http = new GraphHttp('https://graph.example', transport);
    const options = { sleep: async () => undefined, now: () => 0, maxRetries: 0 };
    return {
      writes: () => sendBatchSettled(http, requests(2), options, context),
      read: () => sendBatch(http, requests(2), options, context),
    };
  }

  it('refuses an answer that leaves a sub-request out: a write may have been applied, a read is not made', async () => {
    const answered = sendAnswered({ responses: [{ id: '0', status: 204 }] });
    const settled = await answered.writes();
    expect(settled.unanswered.map((u) => [u.id, u.error.code, u.error.details])).toEqual([
      ['1', 'TARGET_RESPONSE_INVALID', { maybeApplied: true }],
    ]);
    const failed = await answered.read().catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'TARGET_RESPONSE_INVALID' });
    expect((failed as ProvisioningError).details?.maybeApplied).toBeUndefined();
  });

  it('takes an accepted envelope answered without sub-responses as one whose writes may have been applied, and a read as not made', async () => {
    const answered = sendAnswered({ error: 'gateway page' });
    const settled = await answered.writes();
    expect(settled.unanswered.map((u) => [u.id, u.error.code, u.error.details])).toEqual([
      ['0', 'TARGET_RESPONSE_INVALID', { maybeApplied: true }],
      ['1', 'TARGET_RESPONSE_INVALID', { maybeApplied: true }],
    ]);
    const failed = await answered.read().catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'TARGET_RESPONSE_INVALID' });
    expect((failed as ProvisioningError).details).toBeUndefined();
  });
});
