import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_SANDBOX_CLIENT,
  startGraphSandbox,
  type GraphSandbox,
} from '../../../src/sandbox/graph/index.js';
import { graphTestClient, newUserBody, type GraphTestClient } from './graph-test-client.js';

/**
 * Quota mode: Entra ID's limits per app in the tenant (graph-behaviour.md, Errors and
 * throttling), as hostile as the real ones: every $batch sub-request counts, a refused
 * call still counts, and Retry-After says how long to wait.
 */
let sandbox: GraphSandbox | undefined;
let client: GraphTestClient | undefined;
afterEach(async () => {
  await client?.close();
  await sandbox?.close();
  client = undefined;
  sandbox = undefined;
});

let clock = Date.parse('2026-11-23T08:00:00Z');
const now = () => clock;

async function start(quota: Parameters<typeof startGraphSandbox>[0]) {
  sandbox = await startGraphSandbox({ now, ...quota });
  client = await graphTestClient(sandbox);
  return { s: sandbox, c: client };
}

describe('Graph sandbox quota mode', () => {
  it('lets writes through up to the quota, then answers 429 with Retry-After and the scope', async () => {
    const { s, c } = await start({ quota: { writes: 3, writeWindowMs: 30_000 } });
    const group = s.addGroup({ displayName: 'Quota' }).id;
    const user = s.addUser({ userPrincipalName: 'q.one@contoso.example' }).id;
    for (let i = 0; i < 3; i++) {
      const created = await c.call('POST', '/users', newUserBody(`quota.user${i}`));
      expect(created).toMatchObject({ status: 201 });
      expect(created.reset === false && created.headers['x-ms-resource-unit']).toBe('1');
    }
    // The quota is used up: refused, and the refused call counts, so two writes' worth of
    // refill (20 s) pass before the next one goes through.
    const refused = await c.call('POST', `/groups/${group}/members/$ref`, c.ref(user));
    expect(refused).toMatchObject({ status: 429, retryAfter: '20' });
    expect(refused.reset === false && refused.headers).toMatchObject({
      'x-ms-throttle-scope': `Tenant_Application/Write/${DEFAULT_SANDBOX_CLIENT.clientId}/${s.tenantId}`,
      'x-ms-throttle-information': 'WriteLimitExceeded',
    });
    // Reads have their own budget: still answered.
    expect(await c.call('GET', '/users?$select=id')).toMatchObject({ status: 200 });
    // A retry before its Retry-After is refused again (and counts again).
    clock += 10_000;
    expect(await c.call('POST', `/groups/${group}/members/$ref`, c.ref(user))).toMatchObject({
      status: 429,
    });
    clock += 20_000;
    expect(await c.call('POST', `/groups/${group}/members/$ref`, c.ref(user))).toMatchObject({
      status: 204,
    });
    expect(s.groupIdsOf(user)).toEqual([group]);
    expect(s.quotaStats()).toMatchObject({ writes: 4, throttled: 2 });
  });

  it('counts every $batch sub-request, each answered on its own', async () => {
    const { s, c } = await start({ quota: { writes: 2, writeWindowMs: 60_000 } });
    const user = s.addUser({ userPrincipalName: 'q.two@contoso.example' }).id;
    const groups = ['A', 'B', 'C'].map((name) => s.addGroup({ displayName: name }).id);
    const batch = await c.call('POST', '/$batch', {
      requests: groups.map((id, i) => ({
        id: String(i),
        method: 'POST',
        url: `/groups/${id}/members/$ref`,
        headers: { 'Content-Type': 'application/json' },
        body: c.ref(user),
      })),
    });
    expect(batch.reset === false && batch.body.responses?.map((r) => r.status)).toEqual([
      204, 204, 429,
    ]);
    const third = batch.reset === false ? batch.body.responses?.[2] : undefined;
    expect(third?.headers).toMatchObject({ 'Retry-After': '60' });
    expect(s.groupIdsOf(user).sort()).toEqual(groups.slice(0, 2).sort());
  });

  it('charges reads in resource units as documented, and says when most of them are used', async () => {
    const { s, c } = await start({ quota: { resourceUnits: 10, resourceUnitWindowMs: 10_000 } });
    const user = s.addUser({ userPrincipalName: 'q.three@contoso.example' }).id;
    const units = async (path: string) => {
      const answer = await c.call('GET', path);
      return answer.reset ? undefined : answer.headers['x-ms-resource-unit'];
    };
    expect(await units('/users')).toBe('2');
    expect(await units('/users?$select=id')).toBe('1');
    expect(await units(`/users/${user}/memberOf`)).toBe('2');
    const group = s.addGroup({ displayName: 'Readers' }).id;
    expect(await units(`/groups/${group}/members`)).toBe('3');
    // 8 of 10 used: the next call is told how much of the limit is gone.
    const fourth = await c.call('GET', `/groups/${group}?$select=id`);
    expect(fourth.reset === false && fourth.headers['x-ms-throttle-limit-percentage']).toBe('0.90');
    expect(await c.call('GET', `/groups/${group}/members`)).toMatchObject({
      status: 429,
      retryAfter: '5',
    });
  });

  it('starts empty when told (the middle of a bulk run), and runs its clock faster by timeScale', async () => {
    const { s, c } = await start({
      quota: { writes: 10, writeWindowMs: 10_000, startEmpty: true, timeScale: 10 },
    });
    expect(await c.call('POST', '/users', newUserBody('quota.empty'))).toMatchObject({
      status: 429,
      retryAfter: '2',
    });
    // 200 ms of the sandbox's clock are 2 s of the quota's: 2 writes refilled, 1 spent.
    clock += 200;
    expect(await c.call('POST', '/users', newUserBody('quota.empty'))).toMatchObject({
      status: 201,
    });
    expect(s.quotaStats()).toMatchObject({ calls: 2, writes: 1, throttled: 1 });
  });
});
