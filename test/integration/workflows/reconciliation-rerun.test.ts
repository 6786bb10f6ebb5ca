import { beforeAll, describe, expect, it } from 'vitest';
import { DRIFT_TYPES, type DriftType } from '../../../src/domain/drift-finding';
import {
  reconciliationResult,
  type BulkPass,
  type ReconciliationResult,
} from '../../../src/domain/reconciliation-result';
import type { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import type { StoredFinding } from '../../../src/store/drift-findings';
import type { ActivityResult } from '../../../src/workflows/activity-result';
import type { ReconcileInput } from '../../../src/workflows/activities/activity-inputs';
import { reconciliationActivities } from '../../../src/workflows/activities/reconciliation-activities';
import { importCatalogue, SCIM, useServiceBench } from '../../support/service-bench';

/*
 * Durable runs an activity at least once: a reconciliation's bulk pass may run a second time
 * with the same input, after its first attempt stored its findings (a worker killed before
 * the completion was recorded). The job's report must count what the drift report stores,
 * and the second attempt must report what the first did. Judged on the stored findings and
 * on the SCIM sandbox's own state, never on the activity's word alone.
 */
const bench = useServiceBench();

let activities: ReturnType<typeof reconciliationActivities>;

beforeAll(async () => {
  activities = reconciliationActivities(async () => bench.runtime.services);
  await importCatalogue(bench, SCIM);
  for (const [accountId, groups] of [
    ['ada', ['Engineering']],
    ['bob', ['Sales']],
  ] as const) {
    const report = await bench.run({
      connector: SCIM,
      account: { accountId, displayName: accountId },
      actions: [{ type: 'create' }, { type: 'grant', groups }],
    });
    expect(report.status).toBe('succeeded');
  }
}, 60_000);

/** A change made on the SCIM server by its own administrators, outside the service. */
async function byHand(groupName: string, op: 'add' | 'remove', userName: string): Promise<void> {
  const sandboxes = bench.sandboxes;
  const groupId = sandboxes.scimGroups[groupName]!;
  const operation =
    op === 'add'
      ? { op, path: 'members', value: [{ value: userName }] }
      : { op, path: `members[value eq "${userName}"]` };
  const response = await fetch(`${sandboxes.scim.endpoint}/Groups/${groupId}`, {
    method: 'PATCH',
    headers: {
      authorization: `Bearer ${sandboxes.handChanges.scimToken}`,
      'content-type': 'application/scim+json',
    },
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [operation],
    }),
  });
  expect(response.status, await response.text()).toBeLessThan(300);
}

/** The bulk pass of job `jobId`, as the orchestrator calls it, some minutes after the requests settled. */
function inputOf(jobId: string): ReconcileInput {
  (bench.clock as VirtualClock).advanceBy(5 * 60_000);
  const at = new Date(bench.clock.now()).toISOString();
  return { connector: SCIM, jobId, at, readAt: at, settleMs: 120_000 };
}

function resultOf(answer: ActivityResult<BulkPass>): ReconciliationResult {
  if (!answer.ok) throw new Error(`the pass failed: ${answer.error.message}`);
  expect(answer.value.deferred).toEqual([]);
  return reconciliationResult(answer.value, [], []);
}

async function stored(): Promise<StoredFinding[]> {
  const page = await bench.runtime.services.drift.query({ connector: SCIM, limit: 500 });
  return page.findings;
}

/** Per type, the stored findings that match. */
function countsOf(findings: readonly StoredFinding[], which: (f: StoredFinding) => boolean) {
  const counts = Object.fromEntries(DRIFT_TYPES.map((type) => [type, 0])) as Record<
    DriftType,
    number
  >;
  for (const finding of findings) if (which(finding)) counts[finding.type] += 1;
  return counts;
}

const membershipsOf = (userName: string) =>
  bench.sandboxes.scim
    .groupIdsOf(userName)
    .map((id) => bench.sandboxes.scim.getGroup(id)?.displayName)
    .sort();

describe('a reconciliation pass run twice with the same input', () => {
  it('reports the findings the store holds, the same on both attempts', async () => {
    await byHand('Sales', 'add', 'ada');
    await byHand('Sales', 'remove', 'bob');
    // The truth: ada is in Sales, bob is in no group.
    expect(membershipsOf('ada')).toEqual(['Engineering', 'Sales']);
    expect(membershipsOf('bob')).toEqual([]);

    const input = inputOf('rerun-found');
    const first = resultOf(await activities.reconcileTarget(input));
    const again = resultOf(await activities.reconcileTarget(input));

    const findings = await stored();
    const open = countsOf(findings, (f) => f.status === 'open');
    const found = countsOf(findings, (f) => f.firstJobId === 'rerun-found');
    expect(open).toMatchObject({ memberAddedOutside: 1, memberRemovedOutside: 1 });
    expect(found).toEqual(open);
    for (const result of [first, again]) {
      expect(result.findings).toEqual(open);
      expect(result.found).toEqual(found);
      expect(result.closed).toBe(0);
    }
    // The second attempt did not confirm again what its own first attempt found.
    for (const finding of findings) {
      expect(finding.evidence.join('\n')).not.toContain('confirmed again by job rerun-found');
    }
  }, 60_000);

  it('counts the findings its first attempt closed', async () => {
    await byHand('Sales', 'remove', 'ada');
    await byHand('Sales', 'add', 'bob');
    expect(membershipsOf('ada')).toEqual(['Engineering']);
    expect(membershipsOf('bob')).toEqual(['Sales']);

    const input = inputOf('rerun-closed');
    const first = resultOf(await activities.reconcileTarget(input));
    const again = resultOf(await activities.reconcileTarget(input));

    const findings = await stored();
    const closedByJob = findings.filter((f) => f.closedJobId === 'rerun-closed');
    expect(closedByJob.map((f) => f.type).sort()).toEqual([
      'memberAddedOutside',
      'memberRemovedOutside',
    ]);
    const open = countsOf(findings, (f) => f.status === 'open');
    expect(Object.values(open).every((n) => n === 0)).toBe(true);
    for (const result of [first, again]) {
      expect(result.closed).toBe(closedByJob.length);
      expect(result.findings).toEqual(open);
    }
  }, 60_000);
});
