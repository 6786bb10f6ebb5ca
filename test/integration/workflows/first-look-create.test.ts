import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ProvisioningError } from '../../../src/domain/errors';
import type { GateAnswer } from '../../../src/workflows/activities/quarantine-activities';
import type { ActivityResult } from '../../../src/workflows/activity-result';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import { journalChanges, truthChanges, truthMark } from '../../support/journal-truth';
import { untilHeld } from '../../support/quarantine-watch';
import {
  activityCalls,
  createCalls,
  importCatalogue,
  leaseCalls,
  SCIM,
  useServiceBench,
} from '../../support/service-bench';

/*
 * Issue 15, less per request (revision 5): a request that starts with a create sends it with
 * its first look at the connector, once that look took the account's lease (DESIGN invariant
 * 7). Where the look takes no lease (the connector quarantined, the lease another request's),
 * it sends nothing: the request waits as it did and sends the create in an activity of its
 * own. A catalogue the look cannot read leaves the grant to look its groups up; the create
 * is sent all the same. Judged by the target's truth log and the journal.
 */
const bench = useServiceBench();

beforeAll(async () => {
  await importCatalogue(bench, SCIM);
}, 60_000);

const names = (requestId: string) =>
  activityCalls(bench, requestInstanceId(requestId)).map((call) => call.name);

/** Whether another owner can take the account's lease now (given back at once). */
async function leaseIsFree(accountId: string): Promise<boolean> {
  const { accounts } = bench.runtime.services;
  const probe = await accounts.acquire(SCIM, accountId, 'probe', bench.clock.now(), 1_000);
  if (probe.acquired) await accounts.release(SCIM, accountId, 'probe');
  return probe.acquired;
}

describe('a request that starts with a create, accepted now', () => {
  it('on a quarantined connector takes no lease and sends nothing until released; then creates once', async () => {
    const { scim } = bench.sandboxes;
    const { quarantine } = bench.runtime.services;
    const accountId = 'first-look.quarantined';
    const at = new Date(bench.clock.now()).toISOString();
    await quarantine.enter(SCIM, {
      at,
      reason: { code: 'TARGET_UNAVAILABLE', message: 'the target is down' },
      nextProbeAt: new Date(bench.clock.now() + 3_600_000).toISOString(),
    });
    const since = truthMark(scim.truthLog());
    const requestId = await bench.submit({
      requestId: 'first-look-quarantined',
      connector: SCIM,
      account: { accountId, displayName: 'First Look' },
      actions: [{ type: 'create' }],
    });
    await untilHeld(bench, requestId);
    expect(scim.getUser(accountId)).toBeUndefined();
    expect(await leaseIsFree(accountId)).toBe(true);
    const [look] = activityCalls(bench, requestInstanceId(requestId));
    expect(look?.name).toBe(ACTIVITIES.connectorGate);
    expect(look?.input).toMatchObject({ create: { profile: { accountId } } });
    expect((look?.result as ActivityResult<GateAnswer>).ok && look?.result).toMatchObject({
      value: { open: false },
    });

    await quarantine.release(SCIM, 'operator', new Date(bench.clock.now()).toISOString());
    const report = await bench.finish(requestId, 60_000);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    const committed = truthChanges(scim.truthLog(), since);
    expect(committed).toEqual([`${accountId} account created`]);
    expect(journalChanges(await bench.journal(SCIM, accountId))).toEqual(committed);
    // Sent once, by the create's own activity, once the request held the lease.
    const creates = createCalls(bench, requestId);
    expect(creates.map((call) => call.name)).toEqual([ACTIVITIES.createAccount]);
    const taken = leaseCalls(bench, requestId).find(
      (call) => (call.result as { value?: { acquired?: boolean } }).value?.acquired === true,
    );
    expect(creates[0]!.scheduledAt).toBeGreaterThanOrEqual(taken!.answeredAt!);
  }, 90_000);

  it('whose account another request holds sends nothing until the lease is its own; then creates once', async () => {
    const { scim } = bench.sandboxes;
    const accountId = 'first-look.busy';
    const start = bench.clock.now();
    const other = await bench.runtime.services.accounts.acquire(
      SCIM,
      accountId,
      'request-other',
      start,
      3_000,
      true,
    );
    expect(other.acquired).toBe(true);
    const since = truthMark(scim.truthLog());
    const requestId = 'first-look-busy';
    const report = await bench.run({
      requestId,
      connector: SCIM,
      account: { accountId, displayName: 'First Look' },
      actions: [{ type: 'create' }],
    });
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    const committed = truthChanges(scim.truthLog(), since);
    expect(committed).toEqual([`${accountId} account created`]);
    expect(journalChanges(await bench.journal(SCIM, accountId))).toEqual(committed);
    const polls = leaseCalls(bench, requestId);
    expect(polls[0]?.result).toMatchObject({ value: { acquired: false, holder: 'request-other' } });
    const creates = createCalls(bench, requestId);
    expect(creates.map((call) => call.name)).toEqual([ACTIVITIES.createAccount]);
    const taken = polls.find(
      (call) => (call.result as { value?: { acquired?: boolean } }).value?.acquired === true,
    );
    expect(taken!.scheduledAt - start).toBeGreaterThanOrEqual(3_000);
    expect(creates[0]!.scheduledAt).toBeGreaterThanOrEqual(taken!.answeredAt!);
  }, 60_000);

  it('whose catalogue the first look cannot read still sends the create; the grant looks its groups up itself', async () => {
    const { scim } = bench.sandboxes;
    const accountId = 'first-look.no-catalogue';
    const since = truthMark(scim.truthLog());
    vi.spyOn(bench.runtime.services.catalogue, 'list').mockRejectedValueOnce(
      new ProvisioningError('INTERNAL_ERROR', 'storage: the catalogue could not be read', {
        retryable: true,
      }),
    );
    const requestId = 'first-look-no-catalogue';
    const report = await bench.run({
      requestId,
      connector: SCIM,
      account: { accountId, displayName: 'First Look' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
    });
    vi.restoreAllMocks();
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    const committed = truthChanges(scim.truthLog(), since);
    expect(committed).toEqual(
      [
        `${accountId} account created`,
        `${accountId} member added ${bench.sandboxes.scimGroups.Sales}`,
      ].sort(),
    );
    expect(journalChanges(await bench.journal(SCIM, accountId))).toEqual(committed);
    expect(names(requestId)).toEqual([
      ACTIVITIES.connectorGate,
      ACTIVITIES.lookUpRoles,
      ACTIVITIES.readMemberships,
      ACTIVITIES.writeMemberships,
      ACTIVITIES.recordStep,
    ]);
  }, 60_000);
});
