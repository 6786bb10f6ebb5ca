import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphPortal, importCatalogues, provision, reconcile } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Issue 18: a second Graph run after 10 outside changes in 2,000 managed groups reads only
 * the delta. The Graph sandbox counts the requests: groups/delta and users/delta from the
 * kept delta links (one page each), and one $batch of second reads.
 */
const GRAPH = 'graph-sandbox';
const GROUPS = 2_000;
let t: TestHost;
const team = (i: number) => `Team ${String(i).padStart(4, '0')}`;
const upn = (i: number) => `delta.user${i}@contoso.example`;

beforeAll(async () => {
  t = await startTestHost();
  const graph = t.host.sandboxes!.graph;
  for (let i = 0; i < GROUPS; i++) graph.addGroup({ displayName: team(i) });
  await importCatalogues(t);
  for (let i = 0; i < 10; i++) {
    await provision(t, {
      connector: GRAPH,
      account: { accountId: upn(i), displayName: `Delta ${i}` },
      actions: [{ type: 'create' }, { type: 'grant', groups: [team(i * 2), team(i * 2 + 1)] }],
    });
  }
  t.clock.advanceBy(5 * 60_000);
}, 180_000);
afterAll(async () => {
  await t?.close();
});

describe('an incremental Graph reconciliation', () => {
  it('reads only the changes: three requests for ten outside changes in 2,000 managed groups', async () => {
    const sandboxes = t.host.sandboxes!;
    const graph = sandboxes.graph;
    const first = await reconcile(t, GRAPH);
    expect(first.mode).toBe('full');
    expect(first.read.groups).toBeGreaterThanOrEqual(GROUPS);

    const group = (i: number) =>
      graph.snapshot().groups.find((g) => g['displayName'] === team(i))!.id;
    const user = (i: number) => graph.userIdByUpn(upn(i))!;
    const portal = await graphPortal(t);
    try {
      for (let i = 0; i < 4; i++) {
        await portal.call('POST', `/groups/${group(1000 + i)}/members/$ref`, portal.ref(user(i)));
      }
      for (let i = 4; i < 7; i++) {
        await portal.call('DELETE', `/groups/${group(i * 2)}/members/${user(i)}/$ref`);
      }
      for (const i of [7, 8])
        await portal.call('PATCH', `/users/${user(i)}`, { accountEnabled: false });
      const outsider = graph.userIdByUpn('alex.wilber@contoso.example')!;
      await portal.call('POST', `/groups/${group(1500)}/members/$ref`, portal.ref(outsider));
    } finally {
      await portal.close();
    }
    t.clock.advanceBy(5 * 60_000);
    graph.clearRequests();

    const second = await reconcile(t, GRAPH);
    const calls = graph.requests
      .filter((request) => request.viaBatch !== true)
      .map((request) => `${request.method} ${request.path}`);
    expect(second.mode).toBe('incremental');
    expect(calls, calls.join('\n')).toEqual([
      'GET /v1.0/groups/delta',
      'GET /v1.0/users/delta',
      'POST /v1.0/$batch',
    ]);
    expect(second.found).toEqual({
      memberAddedOutside: 4,
      memberRemovedOutside: 3,
      accountDeletedOutside: 0,
      accountStateChangedOutside: 2,
      unlinkedMember: 1,
    });
  }, 120_000);
});
