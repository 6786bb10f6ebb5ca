import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptEnd, CallObserver } from '../../../src/connectors/http/call-observer';
import { HttpTransport } from '../../../src/connectors/http/transport';
import { ProvisioningError } from '../../../src/domain/errors';
import { startTestServer, type TestServer } from '../../support/http-server';

const TOKEN = 'tok-telemetry-5d21';

let server: TestServer;
/** What each path answers, in turn; `reset` destroys the socket, `slow` never answers in time. */
const scripts = new Map<string, Array<number | 'reset' | 'slow'>>();
const received: { path: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = await startTestServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    received.push({ path, headers: req.headers });
    const script = scripts.get(path) ?? [200];
    const step = script.length > 1 ? script.shift()! : script[0]!;
    if (step === 'reset') return void req.socket.destroy();
    if (step === 'slow') return void setTimeout(() => res.end('{}'), 1_500);
    res.writeHead(step, step === 429 ? { 'retry-after': '2' } : {});
    res.end('{}');
  });
});
afterAll(() => server.close());

/** An observer that keeps what it was told, and asks each attempt to carry a header. */
function recorder() {
  const seen = {
    attempts: [] as { method: string; path: string; end?: AttemptEnd }[],
    inside: [] as number[],
    waits: [] as number[],
  };
  const observer: CallObserver = {
    attempt({ method, url }) {
      const entry: (typeof seen.attempts)[number] = { method, path: url.pathname };
      seen.attempts.push(entry);
      return {
        headers: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
        end: (result) => void (entry.end = result),
      };
    },
    throttledInside: (answers) => void seen.inside.push(answers),
    callEnded: (waited) => void seen.waits.push(waited),
  };
  return { seen, observer };
}

function transport(observer: CallObserver, authorize?: () => Promise<Record<string, string>>) {
  let at = 0;
  return new HttpTransport({
    target: 'observed',
    timeoutMs: 500,
    maxRetries: 2,
    concurrency: 2,
    backoff: { baseDelayMs: 10, maxDelayMs: 20 },
    authorize: authorize ?? (async () => ({ authorization: `Bearer ${TOKEN}` })),
    telemetry: observer,
    now: () => at,
    sleep: async (ms) => {
      at += ms;
    },
  });
}

describe('the transport tells its telemetry hook every attempt, and nothing more', () => {
  it('each answer, whether it throttled, and the time the call waited on throttling', async () => {
    scripts.set('/busy', [429, 503, 200]);
    const { seen, observer } = recorder();
    const t = transport(observer);
    const result = await t.send({ method: 'GET', url: `${server.url}/busy?filter=x` });
    await t.close();
    expect(result.status).toBe(200);
    expect(seen.attempts).toEqual([
      { method: 'GET', path: '/busy', end: { status: 429, throttled: true } },
      { method: 'GET', path: '/busy', end: { status: 503, throttled: false } },
      { method: 'GET', path: '/busy', end: { status: 200, throttled: false } },
    ]);
    // Retry-After: 2 s, on the transport's clock.
    expect(seen.waits).toEqual([2_000]);
  });

  it("sends the hook's headers with each attempt, the credentials as before", async () => {
    received.length = 0;
    const { observer } = recorder();
    const t = transport(observer);
    await t.send({ method: 'POST', url: `${server.url}/write`, json: { a: 1 } });
    await t.close();
    expect(received[0]?.headers).toMatchObject({
      traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
      authorization: `Bearer ${TOKEN}`,
    });
  });

  it('an attempt without an answer, by timeout or network failure', async () => {
    scripts.set('/gone', ['reset', 'slow', 200]);
    const { seen, observer } = recorder();
    const t = transport(observer);
    const result = await t.send({ method: 'GET', url: `${server.url}/gone` });
    await t.close();
    expect(result.status).toBe(200);
    expect(seen.attempts.map((a) => a.end)).toEqual([
      { failure: 'network_error' },
      { failure: 'timeout' },
      { status: 200, throttled: false },
    ]);
    expect(seen.waits).toEqual([0]);
  });

  it('nothing when no attempt was sent (the credentials could not be had)', async () => {
    const { seen, observer } = recorder();
    const t = transport(observer, async () => {
      throw new ProvisioningError('GRAPH_TOKEN_FAILED', 'no token');
    });
    await expect(t.send({ method: 'GET', url: `${server.url}/never` })).rejects.toThrow('no token');
    await t.close();
    expect(seen.attempts).toEqual([]);
  });

  it('throttling answers that came inside another answer', async () => {
    const { seen, observer } = recorder();
    const t = transport(observer);
    t.throttledInside(3);
    await t.close();
    expect(seen.inside).toEqual([3]);
  });
});
