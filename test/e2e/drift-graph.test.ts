import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { newUserBody, type GraphAnswer } from '../integration/sandbox/graph-test-client';
import {
  journalChanges,
  journalOfRequests,
  truthChanges,
  truthMark,
} from '../support/journal-truth';
import {
  byHand,
  gist,
  graphAsReferenceSays,
  importCatalogues,
  provisionDriftAccounts,
  reconcile,
  report,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Issue 18 on the Graph sandbox: the same outside changes, made as an administrator would in
 * the Entra admin center (an app with every permission and Global Administrator), found by a
 * first run that reads groups/delta and users/delta whole, and restored. Replicas lag and the
 * service's writes lose answers, as graph-behaviour.md says Graph does.
 */
const GRAPH = 'graph-sandbox';
const upn = (name: string) => `${name}@contoso.example`;
const status = (answer: GraphAnswer) => (answer.reset ? 'reset' : answer.status);
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  await importCatalogues(t);
  graphAsReferenceSays(t, { lostAnswers: true });
  await provisionDriftAccounts(t, GRAPH, upn);
  // The requests did meet lost answers, and succeeded all the same.
  expect(t.host.sandboxes!.graph.faultCounts()['lost answer']).toBeGreaterThan(0);
  t.clock.advanceBy(5 * 60_000);
}, 180_000);
afterAll(async () => {
  await t?.close();
});

describe('reconciliation and the drift report on the Graph sandbox', () => {
  it('finds exactly the outside changes and the unlinked members, and restores what it may', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.graphGroups;
    const id = (name: string) => sandboxes.graph.userIdByUpn(upn(name))!;
    await byHand(t, async (portal) => {
      expect(
        status(
          await portal.call(
            'POST',
            `/groups/${groups['Finance']}/members/$ref`,
            portal.ref(id('ada')),
          ),
        ),
      ).toBe(204);
      expect(
        status(await portal.call('DELETE', `/groups/${groups['Sales']}/members/${id('bob')}/$ref`)),
      ).toBe(204);
      expect(status(await portal.call('DELETE', `/users/${id('cy')}`))).toBe(204);
      expect(
        status(await portal.call('PATCH', `/users/${id('dee')}`, { accountEnabled: false })),
      ).toBe(204);
      expect(status(await portal.call('POST', '/users', newUserBody('zoe.outsider')))).toBe(201);
      expect(
        status(
          await portal.call(
            'POST',
            `/groups/${groups['Sales']}/members/$ref`,
            portal.ref(id('zoe.outsider')),
          ),
        ),
      ).toBe(204);
    });
    // Past the replicas' lag: the first run's reads show every change.
    t.clock.advanceBy(60_000);

    const first = await reconcile(t, GRAPH);
    expect(first.mode).toBe('full');
    expect(first.complete, JSON.stringify(first)).toBe(true);
    const findings = await report(t, GRAPH);
    expect(findings.map(gist)).toEqual(
      expect.arrayContaining([
        { type: 'memberAddedOutside', accountId: upn('ada'), groupName: 'Finance' },
        { type: 'memberRemovedOutside', accountId: upn('bob'), groupName: 'Sales' },
        { type: 'accountDeletedOutside', accountId: upn('cy') },
        { type: 'accountStateChangedOutside', accountId: upn('dee'), observedEnabled: false },
        { type: 'unlinkedMember', groupName: 'Sales', memberName: upn('zoe.outsider') },
        // Seeded by the sandbox before the service ran: an orphan of the demo directory.
        { type: 'unlinkedMember', groupName: 'Engineering', memberName: upn('adele.vance') },
      ]),
    );
    // The group nested in Sales is a member too, but no account: not an orphan.
    expect(findings).toHaveLength(6);
    expect(first.found.unlinkedMember).toBe(2);

    const since = truthMark(sandboxes.graph.truthLog());
    const restored = await t.api('POST', `/api/connectors/${GRAPH}/drift/restore`, {
      findingIds: findings
        .filter((f) => f.type !== 'unlinkedMember' && f.type !== 'accountDeletedOutside')
        .map((f) => f.findingId),
    });
    expect(restored.status, restored.text).toBe(202);
    for (const restore of restored.body.restores) {
      await t.host.driver.waitFor(requestInstanceId(restore.requestId), 60_000);
      expect((await t.api('GET', `/api/requests/${restore.requestId}`)).body.status).toBe(
        'succeeded',
      );
    }
    expect(sandboxes.graph.groupIdsOf(id('ada'))).not.toContain(groups['Finance']);
    expect(sandboxes.graph.groupIdsOf(id('bob'))).toContain(groups['Sales']);
    expect(sandboxes.graph.getUser(id('dee'))?.['accountEnabled']).toBe(true);
    // Each repair committed once, and nothing else, with replicas lagging; the journal of the
    // restores holds exactly those changes, none more or less. (drift-scim restores while
    // answers are lost, and checks that they were.)
    const committed = truthChanges(sandboxes.graph.truthLog(), since);
    expect(committed).toEqual([
      `${upn('ada')} member removed ${groups['Finance']}`,
      `${upn('bob')} member added ${groups['Sales']}`,
      `${upn('dee')} account unlocked`,
    ]);
    const requestIds = restored.body.restores.map((r: { requestId: string }) => r.requestId);
    expect(journalChanges(await journalOfRequests(t, requestIds))).toEqual(committed);

    // Unlinked members are never restored by the service: it does not own those accounts.
    const unlinked = findings.find((f) => f.type === 'unlinkedMember')!;
    const refused = await t.api('POST', `/api/connectors/${GRAPH}/drift/restore`, {
      findingIds: [unlinked.findingId],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('DRIFT_NOT_RESTORABLE');

    t.clock.advanceBy(5 * 60_000);
    const after = await reconcile(t, GRAPH);
    expect(after.mode).toBe('incremental');
    expect(after.closed).toBe(3);
    expect(after.findings).toMatchObject({
      memberAddedOutside: 0,
      memberRemovedOutside: 0,
      accountStateChangedOutside: 0,
      accountDeletedOutside: 1,
      unlinkedMember: 2,
    });
  }, 180_000);
});
