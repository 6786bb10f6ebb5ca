import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  byHand,
  graphAsReferenceSays,
  importCatalogues,
  provision,
  reconcile,
  report,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Issue 18: a second Graph run after 10 outside changes in 2,000 managed groups reads only
 * the delta. The Graph sandbox counts the requests: groups/delta and users/delta from the
 * kept delta links (one page each), and one $batch of second reads. Replicas lag and the
 * service's writes lose answers, as graph-behaviour.md says Graph does; the findings are the
 * changes the sandbox's truth log holds, account by account and group by group.
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
  graphAsReferenceSays(t, { lostAnswers: true });
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
    graph.clearTruthLog();
    await byHand(t, async (portal) => {
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
    });
    t.clock.advanceBy(5 * 60_000);
    graph.clearRequests();

    const second = await reconcile(t, GRAPH);
    const sent = graph.requests.filter((request) => request.viaBatch !== true);
    // An answer lost on the way (reset, or 504 from the gateway) is sent again: not a read more.
    const lost = sent.filter((request) => request.answerLost === true);
    expect(lost.length).toBe(graph.faultCounts()['lost answer']);
    const calls = sent
      .filter((request) => !lost.includes(request))
      .map((request) => `${request.method} ${request.path}`);
    expect(second.mode).toBe('incremental');
    expect(calls, calls.join('\n')).toEqual([
      'GET /v1.0/groups/delta',
      'GET /v1.0/users/delta',
      'POST /v1.0/$batch',
    ]);
    // What the truth says differs from what the service assigned: each change committed since.
    const linked = new Set(Array.from({ length: 10 }, (_, i) => user(i)));
    const kinds: Record<string, string> = {
      'member added': 'memberAddedOutside',
      'member removed': 'memberRemovedOutside',
      'account locked': 'accountStateChangedOutside',
    };
    const differs = graph.truthLog().map((e) => {
      const kind =
        e.change === 'member added' && !linked.has(e.userId) ? 'unlinkedMember' : kinds[e.change];
      return `${kind} ${e.userId} ${e.groupId ?? ''}`;
    });
    const found = (await report(t, GRAPH, { status: 'open' }))
      .filter((f) => f.firstJobId === second.jobId)
      .map((f) => `${f.type} ${f.targetId} ${f.groupId ?? ''}`);
    expect(found.sort()).toEqual(differs.sort());
    expect(second.found).toEqual({
      memberAddedOutside: 4,
      memberRemovedOutside: 3,
      accountDeletedOutside: 0,
      accountStateChangedOutside: 2,
      unlinkedMember: 1,
    });
  }, 120_000);
});
