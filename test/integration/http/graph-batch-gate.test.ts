import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendBatch } from '../../../src/connectors/graph/graph-batch';
import { GraphHttp } from '../../../src/connectors/graph/graph-http';
import { HttpTransport } from '../../../src/connectors/http/transport';
import { startTestServer, type TestServer } from '../../support/http-server';

let server: TestServer;
let rounds = 0;
/** The sub-response of request `id` in envelope `round`; unscripted ones apply (204). */
let script: (round: number, id: string) => Record<string, unknown> | undefined;

beforeEach(() => {
  rounds = 0;
});

beforeAll(async () => {
  server = await startTestServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      rounds++;
      const { requests } = JSON.parse(raw) as { requests: { id: string }[] };
      const responses = requests.map(({ id }) => ({
        id,
        ...(script(rounds, id) ?? { status: 204 }),
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ responses }));
    });
  });
});

afterAll(async () => {
  await server.close();
});

/**
 * Two membership removals sent through a real transport on a virtual clock, with
 * `maxRetries` for both the transport and the batch's 503/504 rounds.
 */
async function sendTwoRemovals(maxRetries: number) {
  let clock = 0;
  const now = () => clock;
  const sleep = async (ms: number) => {
    clock += ms;
  };
  const transport = new HttpTransport({
    target: 'entra',
    timeoutMs: 2_000,
    maxRetries,
    concurrency: 4,
    now,
    sleep,
  });
  const http = new GraphHttp(server.url, transport);
  const answers = await sendBatch(
    http,
    ['0', '1'].map((id) => ({
      id,
      method: 'DELETE' as const,
      url: `/groups/g/members/u${id}/$ref`,
    })),
    { sleep, now, maxRetries },
    {
      connector: 'entra',
      task: 'writeMemberships',
      subject: 'writes',
      object: 'g',
      notFound: 'GROUP_NOT_FOUND',
    },
  );
  await transport.close();
  return { answers, gate: transport.gate.stats };
}

describe('sendBatch through the transport', () => {
  it('a sub-response 429 pauses every caller of the target and lowers its concurrency, then is re-sent', async () => {
    // The first $batch answer throttles one sub-request; later ones apply everything.
    script = (round, id) =>
      round === 1 && id === '1'
        ? { status: 429, headers: { 'Retry-After': '3' }, body: {} }
        : undefined;
    const { answers, gate } = await sendTwoRemovals(2);
    expect(rounds).toBe(2);
    expect(answers.get('0')).toMatchObject({
      status: 204,
      throttledAnswers: 0,
      throttledWaitMs: 0,
    });
    expect(answers.get('1')).toMatchObject({
      status: 204,
      throttledAnswers: 1,
      throttledWaitMs: 3_000,
      maybeAppliedBefore: false,
    });
    expect(gate).toMatchObject({
      limit: 2,
      pausedUntil: 3_000,
      throttleWaitMs: 3_000,
    });
  });

  it('a sub-response 503 with Retry-After is throttling (graph-behaviour.md): every caller pauses, and it is waited out beyond maxRetries', async () => {
    script = (round, id) =>
      round === 1 && id === '1'
        ? {
            status: 503,
            headers: { 'Retry-After': '4' },
            body: { error: { code: 'serviceNotAvailable', message: 'Retry later.' } },
          }
        : undefined;
    // No retry of a failure is allowed: only the throttle budget lets the 503 be re-sent.
    const { answers, gate } = await sendTwoRemovals(0);
    expect(rounds).toBe(2);
    expect(answers.get('1')).toMatchObject({
      status: 204,
      throttledWaitMs: 4_000,
      // A gateway's 503 may come after the directory committed the change.
      maybeAppliedBefore: true,
    });
    expect(gate).toMatchObject({ pausedUntil: 4_000, throttleWaitMs: 4_000 });
  });
});
