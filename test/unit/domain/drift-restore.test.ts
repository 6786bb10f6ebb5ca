import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
import type { DriftFinding } from '../../../src/domain/drift-finding';
import { stillRestorable } from '../../../src/domain/drift-restore';

const SEEN = '2026-11-22T08:00:00.000Z';
const LATER = '2026-11-22T09:00:00.000Z';

function finding(over: Partial<DriftFinding>): DriftFinding {
  return {
    findingId: 'f1',
    connector: 'hr',
    status: 'open',
    type: 'memberAddedOutside',
    accountId: 'ada',
    targetId: 'u1',
    groupId: 'g2',
    firstSeen: SEEN,
    lastConfirmed: SEEN,
    firstJobId: 'j1',
    lastJobId: 'j1',
    evidence: ['GET /Groups/g2'],
    ...over,
  };
}

function record(over: Partial<AccountRecord>): AccountRecord {
  return {
    connector: 'hr',
    accountId: 'ada',
    targetId: 'u1',
    linkedAt: SEEN,
    enabled: true,
    enabledAt: SEEN,
    assignedGroups: ['g1'],
    ...over,
  };
}

describe('stillRestorable: a restore never undoes what the service did after the finding', () => {
  it('keeps a finding the record still supports', () => {
    expect(stillRestorable(finding({}), record({}))).toBeUndefined();
    const removed = finding({ type: 'memberRemovedOutside', groupId: 'g1' });
    expect(stillRestorable(removed, record({}))).toBeUndefined();
    const locked = finding({
      type: 'accountStateChangedOutside',
      groupId: undefined,
      expectedEnabled: true,
      observedEnabled: false,
    });
    expect(stillRestorable(locked, record({}))).toBeUndefined();
  });

  it('skips a member added outside once the service granted the group', () => {
    const granted = record({
      assignedGroups: ['g1', 'g2'],
      groupWrites: { g2: { member: true, at: LATER } },
    });
    expect(stillRestorable(finding({}), granted)).toBe(
      `the service assigns group g2 to "ada" now (granted at ${LATER}, after the finding was last confirmed at ${SEEN}): revoking it would undo that grant`,
    );
  });

  it('skips a member removed outside once the service revoked the group', () => {
    const revoked = record({
      assignedGroups: [],
      groupWrites: { g1: { member: false, at: LATER } },
    });
    expect(
      stillRestorable(finding({ type: 'memberRemovedOutside', groupId: 'g1' }), revoked),
    ).toContain('the service no longer assigns group g1 to "ada" (revoked at');
  });

  it('skips a membership whose last grant or revoke is not settled', () => {
    const unsettled = record({ assignedGroups: ['g1'], unconfirmedGroups: ['g2'] });
    expect(stillRestorable(finding({}), unsettled)).toContain('was sent and not confirmed');
  });

  it('skips a state change once the service set another state, or when its state is not known', () => {
    const leaver = finding({
      type: 'accountStateChangedOutside',
      groupId: undefined,
      expectedEnabled: false,
      observedEnabled: true,
    });
    expect(stillRestorable(leaver, record({ enabled: true, enabledAt: LATER }))).toBe(
      `the service unlocked "ada" at ${LATER}, after the finding was last confirmed at ${SEEN}: locking it back would undo that`,
    );
    const unknown = record({ enabledUnconfirmed: true });
    delete unknown.enabled;
    expect(stillRestorable(leaver, unknown)).toContain('is not confirmed');
  });

  it('skips a finding about an object the service no longer links', () => {
    expect(stillRestorable(finding({}), undefined)).toContain('no longer links "ada"');
    expect(stillRestorable(finding({}), record({ targetId: '' }))).toContain('no longer links');
    expect(stillRestorable(finding({}), record({ targetId: 'u9' }))).toContain(
      'to another object (u9)',
    );
  });

  it('keeps a finding whose later write agrees with the restore (the restore sent again)', () => {
    const revokedByRestore = record({ groupWrites: { g2: { member: false, at: LATER } } });
    expect(stillRestorable(finding({}), revokedByRestore)).toBeUndefined();
  });
});
