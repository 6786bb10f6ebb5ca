import { afterEach, describe, expect, it } from 'vitest';
import { ScimConnector } from '../../../src/connectors/scim/scim-connector';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { createdAccount } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * SCIM's members filter is believed to say "not a member" once it has shown the connector a
 * member (its positive control), which a worker keeps in memory. A read says when it believed
 * it (`absenceVouched`), and a read told that an earlier read of its step did
 * (`absenceVouchedBefore`) believes it too: a worker started since the earlier read. Judged
 * by the sandbox's truth (`groupIdsOf`).
 */
let target: ScimTarget | undefined;
const workers: ScimConnector[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
  await target?.close();
  target = undefined;
});

/** A worker of the same connector started after the first: it has seen nothing yet. */
function newWorker(t: ScimTarget): ScimConnector {
  const worker = new ScimConnector(t.settings, { secrets: t.secrets });
  workers.push(worker);
  return worker;
}

/** An account revoked from Team by the first worker, after a read that found it there. */
async function revokedAfterARead(quirks: ScimQuirks) {
  target = await startScimTarget({ quirks });
  const t = target;
  const [team] = t.sandbox.seedGroups([{ displayName: 'Team', members: ['colleague.one'] }]);
  const teamId = team!.id;
  const account = await createdAccount(t.connector, { accountId: 'evidence.member' });
  const names = { [teamId]: 'Team' };
  await t.connector.writeMemberships(account, { add: [teamId], remove: [] }, names);
  const before = await t.connector.readMemberships(account, [teamId], [teamId]);
  await t.connector.writeMemberships(account, { add: [], remove: [teamId] }, names);
  expect(t.sandbox.groupIdsOf(account.accountId)).toEqual([]);
  return { t, account, teamId, before };
}

describe('a SCIM read told that an earlier read of its step vouched for "not a member"', () => {
  it('believes the members filter in a worker whose filter has shown nobody', async () => {
    const { t, account, teamId, before } = await revokedAfterARead({});
    expect(before).toMatchObject({ groupIds: [teamId], absenceVouched: true });

    const untold = await newWorker(t).readMemberships(account, [teamId], [teamId]);
    expect(untold).toMatchObject({ groupIds: [], unproven: [teamId] });
    expect(untold.absenceVouched).toBeUndefined();

    const told = await newWorker(t).readMemberships(account, [teamId], [teamId], true);
    expect(told.groupIds).toEqual([]);
    expect(told.unproven).toBeUndefined();
    expect(told.absenceVouched).toBe(true);
  });

  it('still could not tell in a worker that reads whole groups (a filter it found ignores members)', async () => {
    const { t, account, teamId } = await revokedAfterARead({ membersFilter: 'ignored' });
    const read = await newWorker(t).readMemberships(account, [teamId], [teamId], true);
    expect(read).toMatchObject({ groupIds: [], unproven: [teamId] });
    expect(read.absenceVouched).toBeUndefined();
  });
});
