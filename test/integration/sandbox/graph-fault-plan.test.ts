import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGraphSandbox } from '../../../src/sandbox/graph/index.js';
import type { GraphSandbox } from '../../../src/sandbox/graph/index.js';
import { graphTestClient, newUserBody } from './graph-test-client.js';
import type { GraphAnswer, GraphTestClient } from './graph-test-client.js';

let clock = 1_700_000_000_000;
let sandbox: GraphSandbox;
let client: GraphTestClient;
let serial = 0;

const outcome = (answer: GraphAnswer) => (answer.reset ? 'reset' : answer.status);
const upn = (localPart: string) => `${localPart}@contoso.example`;
const nextName = (prefix: string) => `${prefix}${++serial}`;

beforeAll(async () => {
  sandbox = await startGraphSandbox({ now: () => clock });
  client = await graphTestClient(sandbox);
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

beforeEach(() => {
  sandbox.setFaults(undefined);
  sandbox.clearTruthLog();
});

describe('Graph fault plan', () => {
  it('is off by default: every count is 0 and calls are answered', async () => {
    expect(Object.values(sandbox.faultCounts())).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect((await client.call('GET', '/users?$top=1')).reset).toBe(false);
  });

  it('lost answer: the write is applied while the client sees a reset or a 504', async () => {
    sandbox.setFaults({ seed: 11, lostAnswerRate: 1 });
    const names = [1, 2, 3, 4, 5, 6].map(() => nextName('lost'));
    const seen: (number | 'reset')[] = [];
    for (const name of names)
      seen.push(outcome(await client.call('POST', '/users', newUserBody(name))));
    expect(seen).toContain('reset');
    expect(seen).toContain(504);
    expect(seen.every((s) => s === 'reset' || s === 504)).toBe(true);
    for (const name of names) expect(sandbox.userIdByUpn(upn(name))).toBeDefined();
    expect(sandbox.truthLog().map((e) => [e.change, e.accountId])).toEqual(
      names.map((name) => ['account created', upn(name)]),
    );
    expect(sandbox.faultCounts()['lost answer']).toBe(6);
    // The log says what reached the client (0 for a reset, 504) and that the answer was lost.
    expect(
      sandbox.requests.slice(-6).map((r) => [r.status === 0 ? 'reset' : r.status, r.answerLost]),
    ).toEqual(seen.map((s) => [s, true]));

    const id = sandbox.userIdByUpn(upn(names[0]!))!;
    const lock = await client.call('PATCH', `/users/${id}`, { accountEnabled: false });
    expect(lock.reset || lock.status === 504).toBe(true);
    expect(sandbox.getUser(id)?.['accountEnabled']).toBe(false);

    // Reads are never lost, and the retry of a lost create meets the change in place.
    sandbox.setFaults({ seed: 11 });
    expect(outcome(await client.call('GET', `/users/${id}`))).toBe(200);
    const retry = await client.call('POST', '/users', newUserBody(names[1]!));
    expect(retry).toMatchObject({ status: 400, body: { error: { code: 'Request_BadRequest' } } });
  });

  it('throttle: 429 with Retry-After in range, nothing applied; the token endpoint is never faulted', async () => {
    sandbox.setFaults({ seed: 5, throttleRate: 1, retryAfterSeconds: [2, 4] });
    const name = nextName('throttled');
    const answers = [
      await client.call('POST', '/users', newUserBody(name)),
      await client.call('GET', '/users?$top=1'),
      await client.call('POST', '/users', newUserBody(name)),
    ];
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 429, body: { error: { code: 'TooManyRequests' } } });
      expect(Number(answer.reset ? NaN : answer.retryAfter)).toBeGreaterThanOrEqual(2);
      expect(Number(answer.reset ? NaN : answer.retryAfter)).toBeLessThanOrEqual(4);
    }
    expect(sandbox.userIdByUpn(upn(name))).toBeUndefined();
    expect(sandbox.truthLog()).toEqual([]);
    expect(sandbox.faultCounts()).toMatchObject({ throttle: 3, storm: 0, reset: 0 });
    const second = await graphTestClient(sandbox);
    await second.close();
  });

  it('throttle without Retry-After: a bare 429, nothing applied', async () => {
    const id = sandbox.addUser({ userPrincipalName: upn(nextName('bare')) }).id;
    sandbox.setFaults({ seed: 13, throttleRate: 1, retryAfterOmittedRate: 1 });
    const lock = await client.call('PATCH', `/users/${id}`, { accountEnabled: false });
    expect(lock).toMatchObject({ status: 429, retryAfter: null });
    expect(sandbox.getUser(id)?.['accountEnabled']).toBe(true);
    expect(sandbox.faultCounts().throttle).toBe(1);
    // Half of them: some 429s carry the header, some do not.
    sandbox.setFaults({ seed: 13, throttleRate: 1, retryAfterOmittedRate: 0.5 });
    const headers: (string | null)[] = [];
    for (let i = 0; i < 12; i++) {
      const answer = await client.call('GET', '/users?$top=1');
      headers.push(answer.reset ? 'reset' : answer.retryAfter);
    }
    expect(headers).toContain(null);
    expect(headers.some((h) => h !== null)).toBe(true);
  });

  it('server errors and resets come before anything is done', async () => {
    sandbox.setFaults({ seed: 6, serverErrorRate: 1 });
    const name = nextName('failing');
    const statuses: (number | 'reset')[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(outcome(await client.call('POST', '/users', newUserBody(name))));
    expect(new Set(statuses)).toEqual(new Set([503, 504]));
    sandbox.setFaults({ seed: 6, resetRate: 1 });
    expect(outcome(await client.call('POST', '/users', newUserBody(name)))).toBe('reset');
    expect(sandbox.userIdByUpn(upn(name))).toBeUndefined();
    expect(sandbox.truthLog()).toEqual([]);
    expect(sandbox.faultCounts()).toMatchObject({ reset: 1, 'server error': 0 });
    expect(sandbox.requests.at(-1)).toMatchObject({ method: 'POST', status: 0 });
  });

  it('storm: for lengthMs of every everyMs, every call answers 429 until the storm ends', async () => {
    const start = clock;
    sandbox.setFaults({ seed: 7, storms: { everyMs: 60_000, lengthMs: 10_000 } });
    const name = nextName('storm');
    clock = start + 49_999;
    expect(outcome(await client.call('GET', '/users?$top=1'))).toBe(200);
    clock = start + 52_500;
    const stormy = await client.call('POST', '/users', newUserBody(name));
    expect(stormy).toMatchObject({ status: 429, retryAfter: '8' });
    clock = start + 59_001;
    expect(await client.call('GET', '/users?$top=1')).toMatchObject({
      status: 429,
      retryAfter: '1',
    });
    expect(sandbox.userIdByUpn(upn(name))).toBeUndefined();
    clock = start + 60_000;
    expect(outcome(await client.call('POST', '/users', newUserBody(name)))).toBe(201);
    clock = start + 115_000;
    expect(outcome(await client.call('GET', '/users?$top=1'))).toBe(429);
    expect(sandbox.faultCounts().storm).toBe(3);
  });

  it('the same seed gives the same decisions; another seed others', async () => {
    const plan = { throttleRate: 0.3, serverErrorRate: 0.2, resetRate: 0.1 };
    const run = async (seed: number) => {
      sandbox.setFaults({ seed, ...plan });
      const seen: (number | 'reset')[] = [];
      for (let i = 0; i < 30; i++) seen.push(outcome(await client.call('GET', '/users?$top=1')));
      return { seen, counts: sandbox.faultCounts() };
    };
    const first = await run(42);
    expect(await run(42)).toEqual(first);
    expect(new Set(first.seen)).toEqual(new Set([200, 429, 503, 504, 'reset']));
    expect((await run(43)).seen).not.toEqual(first.seen);
  });

  it('$batch: each sub-request is throttled on its own; nothing throttled is applied', async () => {
    const id = sandbox.addUser({ userPrincipalName: upn(nextName('batch')) }).id;
    sandbox.setFaults({ seed: 8, throttleRate: 1, retryAfterSeconds: [3, 3] });
    const requests = [
      { id: '1', method: 'GET', url: '/users?$top=1' },
      {
        id: '2',
        method: 'PATCH',
        url: `/users/${id}`,
        headers: { 'content-type': 'application/json' },
        body: { accountEnabled: false },
      },
    ];
    const answer = await client.call('POST', '/$batch', { requests });
    expect(answer).toMatchObject({ status: 200 });
    const responses = answer.reset ? [] : (answer.body.responses ?? []);
    expect(responses.map((r) => [r.id, r.status, r.headers['Retry-After']])).toEqual([
      ['1', 429, '3'],
      ['2', 429, '3'],
    ]);
    expect(sandbox.getUser(id)?.['accountEnabled']).toBe(true);
    expect(sandbox.faultCounts().throttle).toBe(2);
  });

  it('$batch: a lost answer loses the envelope after every sub-request was applied', async () => {
    const ids = [1, 2].map(() => sandbox.addUser({ userPrincipalName: upn(nextName('lb')) }).id);
    sandbox.setFaults({ seed: 9, lostAnswerRate: 1 });
    const requests = ids.map((id, i) => ({
      id: String(i + 1),
      method: 'PATCH',
      url: `/users/${id}`,
      headers: { 'content-type': 'application/json' },
      body: { accountEnabled: false },
    }));
    sandbox.clearRequests();
    const answer = await client.call('POST', '/$batch', { requests });
    expect(answer.reset || answer.status === 504).toBe(true);
    for (const id of ids) expect(sandbox.getUser(id)?.['accountEnabled']).toBe(false);
    // The sub-responses were given and lost with the envelope: the log marks them so.
    expect(sandbox.requests.map((r) => [r.path, r.status, r.viaBatch, r.answerLost])).toEqual([
      ['/v1.0/$batch', answer.reset ? 0 : 504, undefined, true],
      ...ids.map((id) => [`/v1.0/users/${id}`, 204, true, true]),
    ]);
    expect(sandbox.truthLog().map((e) => [e.change, e.userId])).toEqual(
      ids.map((id) => ['account locked', id]),
    );
  });
  it('$batch: a sub-request answer lost after apply is its own 503 or 504; refusals keep theirs', async () => {
    const ids = [1, 2, 3, 4, 5, 6].map(
      () => sandbox.addUser({ userPrincipalName: upn(nextName('ls')) }).id,
    );
    const refused = sandbox.addGroup({ displayName: nextName('Admins'), isAssignableToRole: true });
    sandbox.setFaults({ seed: 12, subRequestLostAnswerRate: 1 });
    const requests = [
      ...ids.map((id, i) => ({
        id: String(i + 1),
        method: 'PATCH',
        url: `/users/${id}`,
        headers: { 'content-type': 'application/json' },
        body: { accountEnabled: false },
      })),
      {
        id: 'refused',
        method: 'POST',
        url: `/groups/${refused.id}/members/$ref`,
        headers: { 'content-type': 'application/json' },
        body: client.ref(ids[0]!),
      },
    ];
    sandbox.clearRequests();
    const answer = await client.call('POST', '/$batch', { requests });
    expect(answer).toMatchObject({ status: 200 });
    const statuses = answer.reset ? [] : (answer.body.responses ?? []).map((r) => r.status);
    expect(statuses.slice(0, 6)).toContain(503);
    expect(statuses.slice(0, 6)).toContain(504);
    expect(statuses.slice(0, 6).every((s) => s === 503 || s === 504)).toBe(true);
    // The refusal is an answer, not a lost one: nothing of it was applied.
    expect(statuses[6]).toBe(403);
    for (const id of ids) expect(sandbox.getUser(id)?.['accountEnabled']).toBe(false);
    expect(sandbox.directMemberIds(refused.id)).toEqual([]);
    expect(sandbox.faultCounts()['lost answer']).toBe(6);
    const subs = sandbox.requests.filter((r) => r.viaBatch === true);
    expect(subs.map((r) => [r.status, r.answerLost])).toEqual([
      ...statuses.slice(0, 6).map((s) => [s, true]),
      [403, undefined],
    ]);
    expect(sandbox.truthLog().map((e) => [e.change, e.userId])).toEqual(
      ids.map((id) => ['account locked', id]),
    );
  });
});
