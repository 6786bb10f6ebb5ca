import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
import type { RestoredFinding } from '../../../src/domain/drift-restore';
import { restoreStepUnderLease } from '../../../src/domain/restore-step';

const SEEN = '2026-11-22T08:00:00.000Z';
const LATER = '2026-11-22T09:00:00.000Z';

const added = (findingId: string, groupId: string): RestoredFinding => ({
  findingId,
  type: 'memberAddedOutside',
  accountId: 'ada',
  targetId: 'u1',
  groupId,
  lastConfirmed: SEEN,
});

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

describe('restoreStepUnderLease: a restore judged again with the lease', () => {
  it('runs the step as planned while the record still supports every finding', () => {
    const action = { type: 'revoke' as const, groups: [{ id: 'g2' }, { id: 'g3' }] };
    expect(
      restoreStepUnderLease(action, [added('f2', 'g2'), added('f3', 'g3')], record({})),
    ).toEqual({ action, keptGroups: [0, 1], notices: [] });
  });

  it('leaves out a group the service granted since, saying why, and keeps the rest', () => {
    const granted = record({
      assignedGroups: ['g1', 'g2'],
      groupWrites: { g2: { member: true, at: LATER } },
    });
    const checked = restoreStepUnderLease(
      { type: 'revoke', groups: [{ id: 'g2' }, { id: 'g3' }] },
      [added('f2', 'g2'), added('f3', 'g3')],
      granted,
    );
    expect(checked.action).toEqual({ type: 'revoke', groups: [{ id: 'g3' }] });
    expect(checked.keptGroups).toEqual([1]);
    expect(checked.notices).toEqual([
      `skipped drift finding f2: the service assigns group g2 to "ada" now (granted at ${LATER}, after the finding was last confirmed at ${SEEN}): revoking it would undo that grant`,
    ]);
  });

  it('skips the whole step when nothing it restores stands', () => {
    const checked = restoreStepUnderLease(
      { type: 'revoke', groups: [{ id: 'g2' }] },
      [added('f2', 'g2')],
      record({ targetId: '' }),
    );
    expect(checked.action).toBeUndefined();
    expect(checked.notices[0]).toContain('skipped drift finding f2: the service no longer links');
  });

  it('skips an unlock once the service locked the account since', () => {
    const state: RestoredFinding = {
      findingId: 'f9',
      type: 'accountStateChangedOutside',
      accountId: 'ada',
      targetId: 'u1',
      expectedEnabled: true,
      lastConfirmed: SEEN,
    };
    const locked = record({ enabled: false, enabledAt: LATER });
    const checked = restoreStepUnderLease({ type: 'unlock' }, [state, added('f2', 'g2')], locked);
    expect(checked.action).toBeUndefined();
    expect(checked.notices).toEqual([
      `skipped drift finding f9: the service locked "ada" at ${LATER}, after the finding was last confirmed at ${SEEN}: unlocking it back would undo that`,
    ]);
    // The revoke of the same restore is judged on its own finding only.
    expect(
      restoreStepUnderLease(
        { type: 'revoke', groups: [{ id: 'g2' }] },
        [state, added('f2', 'g2')],
        locked,
      ).notices,
    ).toEqual([]);
  });
});
