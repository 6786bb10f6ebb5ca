import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScimSandbox } from '../../../src/sandbox/scim/index.js';
import type { ScimSandbox } from '../../../src/sandbox/scim/index.js';
import { outcome, patchOp, scimCall } from './scim-test-client.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

let clock = 1_700_000_000_000;
let s: ScimSandbox;
let groupId: string;
let serial = 0;

const send = (method: string, path: string, body?: unknown) =>
  scimCall(`${s.endpoint}${path}`, method, body);
const nextName = (prefix: string) => `${prefix}${++serial}`;

beforeAll(async () => {
  s = await startScimSandbox({ now: () => clock });
  groupId = s.seedGroups([{ displayName: 'Faulty' }])[0]!.id;
});

afterAll(async () => {
  await s.close();
});

beforeEach(() => {
  s.setFaults(undefined);
  s.clearTruthLog();
});

describe('SCIM fault plan', () => {
  it('lost answer: the write is applied while the client sees a reset or a 504', async () => {
    s.setFaults({ seed: 31, lostAnswerRate: 1 });
    const names = [1, 2, 3, 4, 5, 6].map(() => nextName('lost'));
    const seen: (number | 'reset')[] = [];
    for (const userName of names) {
      const answer = await send('POST', '/Users', { userName, active: true });
      seen.push(outcome(answer));
      if (!answer.reset && answer.status === 504) {
        expect(answer.body).toMatchObject({ schemas: [ERROR], status: '504' });
      }
    }
    expect(new Set(seen)).toEqual(new Set(['reset', 504]));
    for (const userName of names) expect(s.getUser(userName)).toBeDefined();
    expect(s.truthLog().map((e) => [e.change, e.accountId])).toEqual(
      names.map((userName) => ['account created', userName]),
    );
    const add = await send(
      'PATCH',
      `/Groups/${groupId}`,
      patchOp({ op: 'add', path: 'members', value: [{ value: names[0] }] }),
    );
    expect(add.reset || add.status === 504).toBe(true);
    expect(s.groupIdsOf(names[0]!)).toEqual([groupId]);
    expect(s.faultCounts()['lost answer']).toBe(7);
    expect(s.requests.some((r) => r.status === 0)).toBe(true);
    // The log marks each lost answer with the status the client saw, and nothing else.
    const lost = s.requests.filter((r) => r.answerLost === true);
    expect(lost.map((r) => [r.method, r.status === 0 ? 'reset' : r.status])).toEqual([
      ...seen.map((status) => ['POST', status]),
      ['PATCH', add.reset ? 'reset' : 504],
    ]);

    // Reads are never lost; the retry of a lost create meets the account in place.
    expect(outcome(await send('GET', '/Users'))).toBe(200);
    s.setFaults({ seed: 31 });
    expect(outcome(await send('POST', '/Users', { userName: names[1] }))).toBe(409);
  });

  it('throttle: 429 with Retry-After in range and a SCIM error body, nothing applied', async () => {
    s.setFaults({ seed: 32, throttleRate: 1, retryAfterSeconds: [2, 5] });
    const userName = nextName('throttled');
    for (let i = 0; i < 3; i++) {
      const answer = await send('POST', '/Users', { userName });
      expect(answer).toMatchObject({ status: 429, body: { schemas: [ERROR], status: '429' } });
      const seconds = Number(answer.reset ? NaN : answer.retryAfter);
      expect(seconds).toBeGreaterThanOrEqual(2);
      expect(seconds).toBeLessThanOrEqual(5);
    }
    expect(s.getUser(userName)).toBeUndefined();
    expect(s.truthLog()).toEqual([]);
    expect(s.faultCounts()).toMatchObject({ throttle: 3, 'lost answer': 0 });
  });

  it('server errors and resets come before anything is done', async () => {
    const userName = nextName('failing');
    s.setFaults({ seed: 33, serverErrorRate: 1 });
    const statuses: (number | 'reset')[] = [];
    for (let i = 0; i < 6; i++) statuses.push(outcome(await send('POST', '/Users', { userName })));
    expect(new Set(statuses)).toEqual(new Set([503, 504]));
    s.setFaults({ seed: 33, resetRate: 1 });
    expect(outcome(await send('POST', '/Users', { userName }))).toBe('reset');
    expect(s.getUser(userName)).toBeUndefined();
    expect(s.truthLog()).toEqual([]);
    expect(s.faultCounts()).toMatchObject({ reset: 1 });
  });

  it('storm: for lengthMs of every everyMs on the sandbox clock, every call answers 429', async () => {
    const start = clock;
    s.setFaults({ seed: 34, storms: { everyMs: 30_000, lengthMs: 5_000 } });
    const userName = nextName('storm');
    clock = start + 24_999;
    expect(outcome(await send('GET', '/Users'))).toBe(200);
    clock = start + 25_000;
    expect(await send('POST', '/Users', { userName })).toMatchObject({
      status: 429,
      retryAfter: '5',
    });
    clock = start + 29_500;
    expect(await send('GET', '/Groups')).toMatchObject({ status: 429, retryAfter: '1' });
    expect(s.getUser(userName)).toBeUndefined();
    clock = start + 30_000;
    expect(outcome(await send('POST', '/Users', { userName }))).toBe(201);
    expect(s.faultCounts().storm).toBe(2);
  });

  it('the same seed gives the same decisions', async () => {
    const run = async (seed: number) => {
      s.setFaults({ seed, throttleRate: 0.3, serverErrorRate: 0.2, resetRate: 0.1 });
      const seen: (number | 'reset')[] = [];
      for (let i = 0; i < 30; i++) seen.push(outcome(await send('GET', '/Groups')));
      return { seen, counts: s.faultCounts() };
    };
    const first = await run(35);
    expect(await run(35)).toEqual(first);
    expect(new Set(first.seen)).toEqual(new Set([200, 429, 503, 504, 'reset']));
    expect((await run(36)).seen).not.toEqual(first.seen);
  });

  it('queued bursts still come first and are not counted as plan faults', async () => {
    s.setFaults({ seed: 37, throttleRate: 1, retryAfterSeconds: [9, 9] });
    s.injectServerErrors(1, 502);
    expect(outcome(await send('GET', '/Users'))).toBe(502);
    expect(await send('GET', '/Users')).toMatchObject({ status: 429, retryAfter: '9' });
    expect(s.faultCounts()).toMatchObject({ throttle: 1, 'server error': 0 });
  });

  it('drops the bursts not yet served when cleared', async () => {
    s.setFaults(undefined);
    s.injectServerErrors(5, 503);
    s.injectThrottle(5, '1');
    expect(outcome(await send('GET', '/Users'))).toBe(503);
    s.clearInjected();
    expect(outcome(await send('GET', '/Users'))).toBe(200);
  });
});
