import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  journalChanges,
  journalOfRequests,
  truthChanges,
  truthMark,
} from '../support/journal-truth';
import { metricSamples, sumBy } from '../support/metric-samples';
import { DRIFT_EVENTS_QUEUE } from '../../src/store/drift-events';
import { requestInstanceId } from '../../src/workflows/names';
import {
  gist,
  importCatalogues,
  provisionDriftAccounts,
  reconcile,
  report,
  scimAdmin,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Issue 18 on the SCIM sandbox: accounts provisioned through the service, each kind of
 * outside change made by hand with the application's own administrator token, then the
 * reconciliation job: exactly those findings, confirmed by the sandbox's truth; the restore
 * turns them into ordinary requests that put the target back as the service assigned it.
 */
const SCIM = 'scim-sandbox';
type Plan = { steps: { changes: { change: string; groupName?: string }[] }[] };
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  await importCatalogues(t);
  await provisionDriftAccounts(t, SCIM);
  // Beyond the settle window: the requests above are history, not in flight.
  t.clock.advanceBy(5 * 60_000);
}, 120_000);
afterAll(async () => {
  await t?.close();
});
// A test that failed with faults on must not hand them to the next one.
afterEach(() => {
  t?.host.sandboxes?.scim.setFaults(undefined);
});

describe('reconciliation and the drift report on the SCIM sandbox', () => {
  it('finds exactly the five outside changes, confirmed, sends an event for each, and a second run adds none', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    const userId = (userName: string) => String(sandboxes.scim.getUser(userName)?.id);
    const admin = scimAdmin(t);
    await admin.addMember(groups['Finance']!, 'ada');
    await admin.removeMember(groups['Sales']!, 'bob');
    await admin.deleteUser(userId('cy'));
    await admin.setActive(userId('dee'), false);
    await admin.createUser('zoe.outsider');
    await admin.addMember(groups['Sales']!, 'zoe.outsider');

    const first = await reconcile(t, SCIM);
    expect(first.complete, JSON.stringify(first)).toBe(true);
    expect(first.found).toEqual({
      memberAddedOutside: 1,
      memberRemovedOutside: 1,
      accountDeletedOutside: 1,
      accountStateChangedOutside: 1,
      unlinkedMember: 1,
    });
    const findings = await report(t, SCIM);
    expect(findings.map(gist)).toEqual(
      expect.arrayContaining([
        { type: 'memberAddedOutside', accountId: 'ada', groupName: 'Finance' },
        { type: 'memberRemovedOutside', accountId: 'bob', groupName: 'Sales' },
        { type: 'accountDeletedOutside', accountId: 'cy' },
        { type: 'accountStateChangedOutside', accountId: 'dee', observedEnabled: false },
        { type: 'unlinkedMember', groupName: 'Sales', memberName: 'zoe.outsider' },
      ]),
    );
    expect(findings).toHaveLength(5);
    for (const finding of findings) {
      expect(finding.status).toBe('open');
      expect(finding.firstSeen).toBe(finding.lastConfirmed);
      // First read and second read, each named.
      expect(finding.evidence.length, JSON.stringify(finding)).toBeGreaterThanOrEqual(2);
    }
    const unlinked = findings.find((f) => f.type === 'unlinkedMember');
    expect(unlinked?.targetId).toBe(userId('zoe.outsider'));

    const events = await t.host.services.driftEvents.peek(32);
    expect(t.host.services.driftEvents.name).toBe(DRIFT_EVENTS_QUEUE);
    expect(events.map((event) => event.findingId).sort()).toEqual(
      findings.map((finding) => finding.findingId).sort(),
    );
    expect(events[0]).toMatchObject({ event: 'drift.found/v1', connector: SCIM });

    t.clock.advanceBy(60_000);
    const second = await reconcile(t, SCIM);
    expect(second.found).toEqual({
      memberAddedOutside: 0,
      memberRemovedOutside: 0,
      accountDeletedOutside: 0,
      accountStateChangedOutside: 0,
      unlinkedMember: 0,
    });
    expect(second.findings.memberAddedOutside).toBe(1);
    const again = await report(t, SCIM, { status: 'open' });
    expect(again).toHaveLength(5);
    for (const finding of again) expect(finding.lastConfirmed > finding.firstSeen).toBe(true);
    expect(await t.host.services.driftEvents.peek(32)).toHaveLength(5);

    // GET /api/metrics counts each of the five changes made by hand once, over both runs.
    expect(
      sumBy(
        await metricSamples(t),
        'provisioning_reconciliation_findings_total',
        'provisioning_finding',
        { provisioning_connector: SCIM },
      ),
    ).toEqual({
      member_added_outside: 1,
      member_removed_outside: 1,
      account_deleted_outside: 1,
      account_state_changed_outside: 1,
      unlinked_member: 1,
    });
  }, 120_000);

  it('filters the report and answers CSV with every matching finding', async () => {
    const added = await report(t, SCIM, { type: 'memberAddedOutside' });
    expect(added.map(gist)).toEqual([
      { type: 'memberAddedOutside', accountId: 'ada', groupName: 'Finance' },
    ]);
    const bob = await report(t, SCIM, { accountId: 'bob' });
    expect(bob.map((f) => f.type)).toEqual(['memberRemovedOutside']);
    const response = await fetch(`${t.host.url}/api/connectors/${SCIM}/drift?status=open`, {
      headers: { 'x-functions-key': t.host.apiKey, accept: 'text/csv' },
    });
    expect(response.headers.get('content-type')).toContain('text/csv');
    const lines = (await response.text()).trim().split('\r\n');
    expect(lines[0]).toMatch(/^findingId,status,type,accountId,/);
    expect(lines).toHaveLength(6);
  });

  it("previews a restore: each request's plan from the target read now, nothing written, started or marked", async () => {
    const sandboxes = t.host.sandboxes!;
    const truth = sandboxes.scim.truthLog().length;
    const instances = t.host.driver.snapshot().length;
    const preview = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      filter: {},
      mode: 'preview',
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.mode).toBe('preview');
    const plans = Object.fromEntries(
      preview.body.restores.map((r: { accountId: string; plan: Plan }) => [r.accountId, r.plan]),
    );
    expect(Object.keys(plans).sort()).toEqual(['ada', 'bob', 'dee']);
    const changes = (accountId: string) =>
      plans[accountId].steps.flatMap(
        (step: { changes: { change: string; groupName?: string }[] }) =>
          step.changes.map(
            (c) => `${c.change}${c.groupName === undefined ? '' : ` ${c.groupName}`}`,
          ),
      );
    expect(changes('ada')).toEqual(['member removed Finance']);
    expect(changes('bob')).toEqual(['member added Sales']);
    expect(changes('dee')).toEqual(['account unlocked']);
    expect(preview.body.skipped).toHaveLength(2);
    // The target's truth and the service's state: untouched.
    expect(sandboxes.scim.truthLog()).toHaveLength(truth);
    expect(t.host.driver.snapshot()).toHaveLength(instances);
    for (const finding of await report(t, SCIM, { status: 'open' })) {
      expect(finding.restore).toBeUndefined();
    }
  });

  it('restores on purpose while writes lose their answers: ordinary requests put the target back, the journal lists exactly what the target committed, closed findings are refused', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    const since = truthMark(sandboxes.scim.truthLog());
    // scim-interop.md: an answer lost after the write was applied (a reset, a gateway's 504).
    // Half the writes the restores make are applied and their answers lost (with seed 18, the
    // first three at least), so each restore meets the change in place when it tries again.
    sandboxes.scim.setFaults({ seed: 18, lostAnswerRate: 0.5 });
    // Sent twice at once (a caller's retry): the same requests, nothing started twice.
    const restore = () =>
      t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
        filter: {},
        reason: 'access review 42',
      });
    const [restored, retried] = await Promise.all([restore(), restore()]);
    expect(restored.status, restored.text).toBe(202);
    expect(retried.status, retried.text).toBe(202);
    const idsOf = (answer: typeof restored) =>
      answer.body.restores.map((r: { requestId: string }) => r.requestId).sort();
    expect(idsOf(retried)).toEqual(idsOf(restored));
    expect(restored.body.restores.map((r: { accountId: string }) => r.accountId).sort()).toEqual([
      'ada',
      'bob',
      'dee',
    ]);
    expect(restored.body.skipped.map((s: { reason: string }) => s.reason)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/does not own this account/),
        expect.stringMatching(/gone from the target/),
      ]),
    );
    for (const restore of restored.body.restores) {
      await t.host.driver.waitFor(requestInstanceId(restore.requestId), 60_000);
      const request = await t.api('GET', `/api/requests/${restore.requestId}`);
      expect(request.body.status, request.text).toBe('succeeded');
    }
    expect(sandboxes.scim.faultCounts()['lost answer']).toBeGreaterThanOrEqual(3);
    sandboxes.scim.setFaults(undefined);
    // The sandbox's truth: as the service assigned it.
    expect(sandboxes.scim.groupIdsOf('ada')).not.toContain(groups['Finance']);
    expect(sandboxes.scim.groupIdsOf('bob')).toContain(groups['Sales']);
    expect(sandboxes.scim.getUser('dee')?.active).toBe(true);
    // Each repair committed once, and nothing else: neither the caller's retry nor the
    // service's own retries after a lost answer wrote anything of their own.
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toEqual([
      `ada member removed ${groups['Finance']}`,
      `bob member added ${groups['Sales']}`,
      'dee account unlocked',
    ]);
    // The journal of the restores: exactly the changes the truth log shows, none more or less.
    const entries = await journalOfRequests(t, idsOf(restored));
    expect(journalChanges(entries)).toEqual(truthChanges(sandboxes.scim.truthLog(), since));
    expect(entries.map((entry) => entry.reason)).toEqual(entries.map(() => 'access review 42'));

    t.clock.advanceBy(5 * 60_000);
    const after = await reconcile(t, SCIM);
    expect(after.closed).toBe(3);
    const closed = await report(t, SCIM, { status: 'closed' });
    expect(closed.map((f) => f.type).sort()).toEqual([
      'accountStateChangedOutside',
      'memberAddedOutside',
      'memberRemovedOutside',
    ]);
    for (const finding of closed) expect(finding.restore?.requestId).toBeDefined();
    const refused = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      findingIds: [closed[0]!.findingId],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('DRIFT_FINDING_CLOSED');
  }, 120_000);
});
