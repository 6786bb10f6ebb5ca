import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftEventQueue } from '../../src/store/drift-events';
import { reconciliationActivities } from '../../src/workflows/activities/reconciliation-activities';
import { metricSamples, sumBy } from '../support/metric-samples';
import { provision, report, runJob, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Durable runs an activity at least once: a reconciliation's bulk pass may run again with the
 * same input after its first attempt stored its findings (a worker killed before its
 * completion was recorded). The metric of new findings counts each finding once, as the drift
 * report stores it: read as an operator reads it, from GET /api/metrics.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  await runJob(t, `/api/connectors/${SCIM}/imports`, {});
  await provision(t, {
    connector: SCIM,
    account: { accountId: 'ada', displayName: 'Ada' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales'] }],
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const FINDINGS = 'provisioning_reconciliation_findings_total';

describe('a reconciliation pass run twice with the same input', () => {
  it('counts each new finding once in the findings metric', async () => {
    const groups = t.host.sandboxes!.scimGroups;
    const admin = scimAdmin(t);
    await admin.addMember(groups['Finance']!, 'ada');
    await admin.removeMember(groups['Sales']!, 'ada');
    // The truth: ada is in Engineering and Finance.
    expect(
      t.host
        .sandboxes!.scim.groupIdsOf('ada')
        .map((id) => t.host.sandboxes!.scim.getGroup(id)?.displayName)
        .sort(),
    ).toEqual(['Engineering', 'Finance']);
    t.clock.advanceBy(5 * 60_000);
    const before = sumBy(await metricSamples(t), FINDINGS, 'provisioning_finding');

    const activities = reconciliationActivities(async () => t.host.services);
    const at = new Date(t.clock.now()).toISOString();
    const input = { connector: SCIM, jobId: 'metric-rerun', at, readAt: at, settleMs: 120_000 };
    for (let attempt = 1; attempt <= 2; attempt++) {
      const answer = await activities.reconcileTarget(input);
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
    }

    const stored = await report(t, SCIM, { status: 'open' });
    expect(stored.map((f) => [f.type, f.groupName]).sort()).toEqual([
      ['memberAddedOutside', 'Finance'],
      ['memberRemovedOutside', 'Sales'],
    ]);
    const after = sumBy(await metricSamples(t), FINDINGS, 'provisioning_finding');
    const counted = (finding: string) => (after[finding] ?? 0) - (before[finding] ?? 0);
    expect(counted('member_added_outside'), JSON.stringify(after)).toBe(1);
    expect(counted('member_removed_outside'), JSON.stringify(after)).toBe(1);
  }, 120_000);

  it('counts a finding once when the attempt that stored it failed after storing it', async () => {
    const groups = t.host.sandboxes!.scimGroups;
    await scimAdmin(t).addMember(groups['Support']!, 'ada');
    t.clock.advanceBy(5 * 60_000);
    const before = sumBy(await metricSamples(t), FINDINGS, 'provisioning_finding');
    const at = new Date(t.clock.now()).toISOString();
    const input = { connector: SCIM, jobId: 'metric-lost', at, readAt: at, settleMs: 120_000 };
    // The first attempt stores its finding, then cannot send its event (the queue is down):
    // the retry loads the finding open, as an earlier attempt's.
    const queueDown = reconciliationActivities(async () => ({
      ...t.host.services,
      driftEvents: {
        send: async () => {
          throw new Error('the drift events queue is down');
        },
      } as unknown as DriftEventQueue,
    }));
    await expect(queueDown.reconcileTarget(input)).rejects.toThrow(/queue is down/);
    const retried = await reconciliationActivities(async () => t.host.services).reconcileTarget(
      input,
    );
    expect(retried.ok, JSON.stringify(retried)).toBe(true);

    const stored = await report(t, SCIM, { status: 'open' });
    expect(stored.filter((f) => f.groupName === 'Support').map((f) => f.type)).toEqual([
      'memberAddedOutside',
    ]);
    const after = sumBy(await metricSamples(t), FINDINGS, 'provisioning_finding');
    expect((after['member_added_outside'] ?? 0) - (before['member_added_outside'] ?? 0)).toBe(1);
  }, 120_000);
});
