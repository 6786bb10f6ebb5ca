import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport, type TransportOptions } from '../../../src/connectors/http/transport';
import { mapScimError } from '../../../src/connectors/scim/error-mapper';
import { GraphQuota } from '../../../src/connectors/graph/graph-quota';
import { startTestServer, type TestServer } from '../../support/http-server';
import { expectNoSecrets } from '../../support/no-secrets';

const SECRET = 'tok-3f9a1c77e2';

let server: TestServer;
/** Per-path scripted answers: each request to the path takes the next one; the last repeats. */
const scripts = new Map<
  string,
  Array<{ status: number; headers?: Record<string, string>; body?: string; delayMs?: number }>
>();
const hits = new Map<string, number[]>();
let inFlight = 0;
let maxInFlight = 0;
/** The connections the server saw requests on. */
const sockets = new Set<unknown>();

beforeAll(async () => {
  server = await startTestServer((req, res) => {
    const path = req.url ?? '/';
    sockets.add(req.socket);
    hits.set(path, [...(hits.get(path) ?? []), Date.now()]);
    const script = scripts.get(path) ?? [{ status: 200, body: '{}' }];
    const step = script.length > 1 ? script.shift()! : script[0]!;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(step.status, step.headers ?? {});
      res.end(step.body ?? '');
    }, step.delayMs ?? 0);
  });
});

afterAll(async () => {
  await server.close();
});

/** A clock for the transport that jumps ahead on every wait: throttling tests take no real time. */
function virtualClock() {
  let at = 0;
  return {
    now: () => at,
    sleep: async (ms: number) => {
      at += ms;
    },
  };
}

function transport(overrides: Partial<TransportOptions> = {}) {
  return new HttpTransport({
    target: 'test-target',
    timeoutMs: 2_000,
    maxRetries: 3,
    concurrency: 4,
    backoff: { baseDelayMs: 10, maxDelayMs: 50 },
    authorize: async () => ({ authorization: `Bearer ${SECRET}` }),
    secrets: () => [SECRET],
    ...overrides,
  });
}

describe('HttpTransport', () => {
  it('waits as long as Retry-After says (seconds) before retrying a 429', async () => {
    scripts.set('/throttled', [
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200, headers: { 'content-type': 'application/scim+json' }, body: '{"ok":true}' },
    ]);
    const t = transport();
    const result = await t.send({ method: 'GET', url: `${server.url}/throttled` });
    await t.close();
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ ok: true });
    expect(result.attempts).toBe(2);
    const [first, second] = hits.get('/throttled')!;
    expect(second! - first!).toBeGreaterThanOrEqual(950);
    expect(t.stats).toMatchObject({ retries: 1, throttled: 1 });
  });

  it('honours Retry-After in HTTP-date form', async () => {
    const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    scripts.set('/dated', [
      { status: 503, headers: { 'retry-after': at.toUTCString() } },
      { status: 204 },
    ]);
    const t = transport();
    const result = await t.send({ method: 'DELETE', url: `${server.url}/dated` });
    await t.close();
    expect(result.status).toBe(204);
    const [, second] = hits.get('/dated')!;
    expect(second!).toBeGreaterThanOrEqual(at.getTime() - 50);
  });

  it("waits out a quota 429's Retry-After in HTTP-date form before re-sending: one reading for the retry and the quota", async () => {
    const clock = virtualClock();
    scripts.set('/quota-dated', [
      {
        status: 429,
        headers: {
          'retry-after': new Date(5_000).toUTCString(),
          'x-ms-throttle-information': 'WriteLimitExceeded',
        },
      },
      { status: 204 },
    ]);
    const budget = new GraphQuota(
      { writes: 100, writeSeconds: 150, resourceUnits: 1_000, resourceUnitSeconds: 10 },
      0,
    );
    const t = transport({ ...clock, budget });
    const result = await t.send({
      method: 'POST',
      url: `${server.url}/quota-dated`,
      cost: { writes: 1, units: 1 },
    });
    await t.close();
    expect(result).toMatchObject({ status: 204, attempts: 2 });
    // The write bucket stayed empty until the date: the re-send went no earlier.
    expect(clock.now()).toBeGreaterThanOrEqual(5_000);
  });

  it('gives up after the bounded retries and returns the last answer', async () => {
    scripts.set('/down', [{ status: 504 }]);
    const t = transport({ maxRetries: 2 });
    const result = await t.send({ method: 'GET', url: `${server.url}/down` });
    await t.close();
    expect(result.status).toBe(504);
    expect(hits.get('/down')).toHaveLength(3);
  });

  it('does not retry other errors, and does not wait for a Retry-After beyond its limit', async () => {
    scripts.set('/bad', [{ status: 500 }]);
    scripts.set('/later', [{ status: 429, headers: { 'retry-after': '3600' } }]);
    const t = transport({ maxRetryAfterMs: 5_000 });
    expect((await t.send({ method: 'GET', url: `${server.url}/bad` })).status).toBe(500);
    const started = Date.now();
    expect((await t.send({ method: 'GET', url: `${server.url}/later` })).status).toBe(429);
    await t.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(hits.get('/bad')).toHaveLength(1);
    expect(hits.get('/later')).toHaveLength(1);
  });

  it('keeps at most `concurrency` calls in flight per target', async () => {
    scripts.set('/slow', [{ status: 200, delayMs: 40, body: '{}' }]);
    maxInFlight = 0;
    const t = transport({ concurrency: 3 });
    await Promise.all(
      Array.from({ length: 12 }, () => t.send({ method: 'GET', url: `${server.url}/slow` })),
    );
    await t.close();
    expect(maxInFlight).toBe(3);
  });

  it('sends an attempt whose slot frees on a ready connection, never more than `concurrency` in flight', async () => {
    scripts.set('/answered', [{ status: 200, delayMs: 20, body: '{}' }]);
    maxInFlight = 0;
    sockets.clear();
    const t = transport({ concurrency: 3 });
    await Promise.all(
      Array.from({ length: 24 }, () => t.send({ method: 'GET', url: `${server.url}/answered` })),
    );
    await t.close();
    expect(maxInFlight).toBe(3);
    // Spare connections: the connection that has just answered is not waited for (undici
    // reuses it a turn of the event loop later), and there are at most twice the slots.
    expect(sockets.size).toBeGreaterThan(3);
    expect(sockets.size).toBeLessThanOrEqual(6);
  });

  it('times out a call that takes too long, as TARGET_TIMEOUT', async () => {
    scripts.set('/hang', [{ status: 200, delayMs: 1_000 }]);
    const t = transport({ timeoutMs: 100, maxRetries: 0 });
    await expect(t.send({ method: 'GET', url: `${server.url}/hang` })).rejects.toMatchObject({
      code: 'TARGET_TIMEOUT',
      retryable: true,
      object: 'test-target',
    });
    await t.close();
  });

  it('retries network errors and then reports TARGET_UNREACHABLE without credentials', async () => {
    const closed = await startTestServer(() => undefined);
    const url = `${closed.url}/x?filter=userName%20eq%20%22a%22`;
    await closed.close();
    const t = transport({ maxRetries: 2 });
    const error = (await t.send({ method: 'GET', url }).then(
      () => new Error('expected a failure'),
      (e: unknown) => e as Error,
    )) as Error & { code: string };
    await t.close();
    expect(error.code).toBe('TARGET_UNREACHABLE');
    expect(error.message).toContain('test-target: GET http://127.0.0.1');
    expectNoSecrets(error.message, { secret: SECRET }, 'the error');
    expect(t.stats.attempts).toBe(3);
  });

  it('redacts secrets that the target echoes back', async () => {
    scripts.set('/echo', [{ status: 401, body: `{"detail":"token ${SECRET} is not valid"}` }]);
    const exchanges: string[] = [];
    const t = transport({ observer: (e) => exchanges.push(e.answer) });
    const result = await t.send({ method: 'GET', url: `${server.url}/echo` });
    await t.close();
    expect(result.text).toBe('{"detail":"token [redacted] is not valid"}');
    expectNoSecrets(exchanges.join(), { secret: SECRET }, 'the logged exchanges');
  });

  it('keeps an echoed secret out of the parsed answer and the error a mapper builds from it, escaped or not', async () => {
    // A password with a quote and a backslash: written escaped inside the JSON text.
    const password = 'Pa"ss\\word-77';
    const echoed = JSON.stringify({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '400',
      scimType: 'invalidValue',
      detail: `password ${password} is too weak; token ${SECRET}`,
    });
    scripts.set('/weak', [
      { status: 400, headers: { 'content-type': 'application/scim+json' }, body: echoed },
    ]);
    const t = transport({ secrets: () => [SECRET, password] });
    const result = await t.send({ method: 'PATCH', url: `${server.url}/weak`, json: {} });
    await t.close();
    expect(result.body).toMatchObject({
      detail: 'password [redacted] is too weak; token [redacted]',
    });
    expectNoSecrets(result.text, { password: 'word-77' }, 'the answer');
    const error = mapScimError(result, {
      connector: 'hr-app',
      subject: 'account "jdoe"',
      notFound: 'ACCOUNT_NOT_FOUND',
      object: 'jdoe',
    });
    expect(error.message).toContain('password [redacted] is too weak');
    expectNoSecrets(error.toJSON(), { password: 'word-77', secret: SECRET }, 'the error');
  });

  it('reads JSON leniently: any JSON type, charset, or none at all', async () => {
    scripts.set('/a', [
      {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: '{"a":1}',
      },
    ]);
    scripts.set('/b', [{ status: 200, body: '{"b":2}' }]);
    scripts.set('/c', [{ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>' }]);
    const t = transport();
    expect((await t.send({ method: 'GET', url: `${server.url}/a` })).body).toEqual({ a: 1 });
    expect((await t.send({ method: 'GET', url: `${server.url}/b` })).body).toEqual({ b: 2 });
    expect((await t.send({ method: 'GET', url: `${server.url}/c` })).body).toBeUndefined();
    await t.close();
  });

  it('reports a call whose earlier attempt may have been applied (a gateway 504), and not after a 429', async () => {
    scripts.set('/lost', [{ status: 504 }, { status: 200, body: '{}' }]);
    scripts.set('/throttled-once', [
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 200, body: '{}' },
    ]);
    const t = transport();
    const lost = await t.send({ method: 'POST', url: `${server.url}/lost`, json: {} });
    const throttled = await t.send({
      method: 'POST',
      url: `${server.url}/throttled-once`,
      json: {},
    });
    await t.close();
    expect(lost).toMatchObject({ status: 200, maybeAppliedBefore: true });
    expect(throttled).toMatchObject({
      status: 200,
      maybeAppliedBefore: false,
      throttledAnswers: 1,
    });
  });

  it('says whether a failed call may have reached the target: a refused connection did not', async () => {
    const closed = await startTestServer(() => undefined);
    const url = closed.url;
    await closed.close();
    const t = transport({ maxRetries: 1 });
    await expect(t.send({ method: 'POST', url: `${url}/x`, json: {} })).rejects.toMatchObject({
      code: 'TARGET_UNREACHABLE',
      details: { maybeApplied: false },
    });
    await t.close();
  });

  // DESIGN invariant 8: a call waits in place only so long; its request then waits on a durable
  // timer for what the last Retry-After asked (src/domain/throttle-hold.ts) and runs the step
  // again, so the error carries that wait, and is not retryable: no activity retry at once.
  it('returns the 429 once the call has waited in place as long as it may, with what its request waits for', async () => {
    scripts.set('/always-throttled', [{ status: 429, headers: { 'retry-after': '1' } }]);
    const t = transport({ maxThrottleWaitMs: 2_500, ...virtualClock() });
    const result = await t.send({ method: 'GET', url: `${server.url}/always-throttled` });
    await t.close();
    expect(result.status).toBe(429);
    expect(result.throttledAnswers).toBe(3);
    expect(result.throttledWaitMs).toBe(2_000);
    expect(result.retryAfterMs).toBe(1_000);
    expect(t.stats.throttledWaitMs).toBe(result.throttledWaitMs);
    const error = mapScimError(result, {
      connector: 'hr-app',
      subject: 'account "jdoe"',
      notFound: 'ACCOUNT_NOT_FOUND',
      object: 'jdoe',
    });
    expect(error).toMatchObject({
      code: 'TARGET_THROTTLED',
      retryable: false,
      details: {
        throttledWaitMs: result.throttledWaitMs,
        throttledAnswers: 3,
        retryAfterMs: 1_000,
      },
    });
    expect(error.message).toMatch(
      /answered 429 \(throttled: waited 2 s over 3 answers 429; the limit is maxThrottleWaitSeconds = 3\)$/,
    );
  });

  it('returns a 429 whose Retry-After is beyond what a call waits in place at once, with that Retry-After for its request', async () => {
    scripts.set('/storm', [{ status: 429, headers: { 'retry-after': '600' } }]);
    const t = transport({ ...virtualClock() });
    const result = await t.send({ method: 'POST', url: `${server.url}/storm`, json: {} });
    await t.close();
    expect(result).toMatchObject({ status: 429, throttledAnswers: 1, retryAfterMs: 600_000 });
    expect(hits.get('/storm')).toHaveLength(1);
    const error = mapScimError(result, {
      connector: 'hr-app',
      subject: 'account "jdoe"',
      notFound: 'ACCOUNT_NOT_FOUND',
      object: 'jdoe',
    });
    expect(error.details).toMatchObject({ retryAfterMs: 600_000 });
  });

  it('keeps retrying a throttling target past maxRetries while the wait budget lasts', async () => {
    scripts.set('/busy', [
      ...Array.from({ length: 4 }, () => ({ status: 429, headers: { 'retry-after': '10' } })),
      { status: 503, headers: { 'retry-after': '10' } },
      { status: 200, body: '{}' },
    ]);
    const t = transport({ maxRetries: 1, maxThrottleWaitMs: 60_000, ...virtualClock() });
    const result = await t.send({ method: 'POST', url: `${server.url}/busy`, json: {} });
    await t.close();
    expect(result).toMatchObject({
      status: 200,
      attempts: 6,
      throttledAnswers: 4,
      throttledWaitMs: 50_000,
      // graph-behaviour.md: a gateway's 503 can come after the change was committed.
      maybeAppliedBefore: true,
    });
  });

  it('returns a 429 at once when its Retry-After is beyond the wait left', async () => {
    scripts.set('/much-later', [
      { status: 429, headers: { 'retry-after': '10' } },
      { status: 429, headers: { 'retry-after': '55' } },
      { status: 200, body: '{}' },
    ]);
    const t = transport({ maxThrottleWaitMs: 60_000, ...virtualClock() });
    const result = await t.send({ method: 'GET', url: `${server.url}/much-later` });
    await t.close();
    expect(result).toMatchObject({ status: 429, throttledAnswers: 2, throttledWaitMs: 10_000 });
    expect(hits.get('/much-later')).toHaveLength(2);
  });

  it('says an earlier attempt may have been applied when the connection was reset after the request was read', async () => {
    let seen = 0;
    const resetting = await startTestServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen++;
        if (seen === 1) req.socket.destroy();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const t = transport();
    const result = await t.send({ method: 'POST', url: `${resetting.url}/Users`, json: {} });
    await t.close();
    await resetting.close();
    expect(seen).toBe(2);
    expect(result).toMatchObject({ status: 200, attempts: 2, maybeAppliedBefore: true });
  });

  it('says a call that kept meeting resets may have been applied when it gives up', async () => {
    const resetting = await startTestServer((req) => {
      req.resume();
      req.on('end', () => req.socket.destroy());
    });
    const t = transport({ maxRetries: 1 });
    await expect(
      t.send({ method: 'POST', url: `${resetting.url}/Users`, json: {} }),
    ).rejects.toMatchObject({ code: 'TARGET_UNREACHABLE', details: { maybeApplied: true } });
    await t.close();
    await resetting.close();
  });
});

describe('HttpTransport: one throttle gate for every caller of a target', () => {
  it('20 callers against a budget of 5 calls per 2 s: none fails, few answers are 429', async () => {
    // Real time sped up 20 times for the transport and the target alike.
    const scale = 20;
    const started = performance.now();
    const now = () => Math.floor((performance.now() - started) * scale);
    const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms / scale));
    const stamps: number[] = [];
    let throttled = 0;
    const budget = await startTestServer((_req, res) => {
      const at = now();
      while (stamps.length > 0 && stamps[0]! <= at - 2_000) stamps.shift();
      stamps.push(at); // answered 429 or not, a call counts (graph-behaviour.md)
      if (stamps.length > 5) {
        throttled++;
        res.writeHead(429, { 'retry-after': '2' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    // The default wait budget (120 s): the storm must be borne within it.
    const t = transport({ concurrency: 8, now, sleep });
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, caller) => {
        const answers = [];
        for (let call = 0; call < 3; call++) {
          answers.push(await t.send({ method: 'GET', url: `${budget.url}/c${caller}-${call}` }));
        }
        return answers;
      }),
    );
    await t.close();
    await budget.close();
    const statuses = results.flat().map((result) => result.status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // Without the shared gate each caller bounced off alone: hundreds of 429s for 60 calls.
    expect(throttled).toBeLessThan(60);
  });
});
