import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
import type { ProvisioningRequest } from '../../../src/domain/provisioning-request';
import type { StepsOf } from '../../../src/domain/request-step';
import { RestoreJudgements } from '../../../src/workflows/orchestrators/restore-under-lease';

const SEEN = '2026-11-22T08:00:00.000Z';

const record = (over: Partial<AccountRecord>): AccountRecord => ({
  connector: 'hr',
  accountId: 'ada',
  targetId: 'u1',
  linkedAt: SEEN,
  enabled: true,
  enabledAt: SEEN,
  assignedGroups: ['g1'],
  ...over,
});

/** A restore's request: revoke g2 (added outside), unlock (locked outside). */
const restore = {
  requestId: 'r-restore',
  connector: 'hr',
  account: { accountId: 'ada' },
  actions: [{ type: 'revoke', groups: [{ id: 'g2' }] }, { type: 'unlock' }],
  restores: [
    {
      findingId: 'f2',
      type: 'memberAddedOutside',
      accountId: 'ada',
      targetId: 'u1',
      groupId: 'g2',
      lastConfirmed: SEEN,
    },
    {
      findingId: 'f3',
      type: 'accountStateChangedOutside',
      accountId: 'ada',
      targetId: 'u1',
      expectedEnabled: true,
      lastConfirmed: SEEN,
    },
  ],
} as unknown as ProvisioningRequest & StepsOf;

describe('a restore step held and run again', () => {
  it('keeps its first judgement: its own unconfirmed write does not make it skip itself', () => {
    const judged = new RestoreJudgements();
    const first = judged.of(restore, 0, record({}), undefined);
    expect(first.action).toEqual({ type: 'revoke', groups: [{ id: 'g2' }] });
    // The revoke's answer was lost before the hold: the record now says g2 is unsettled.
    const again = judged.of(restore, 0, record({ unconfirmedGroups: ['g2'] }), undefined);
    expect(again.action).toEqual(first.action);
    expect(again.notices).toEqual([]);
    // Its own unlock, not confirmed, does not skip the unlock run again either.
    expect(judged.of(restore, 1, record({}), undefined).action).toEqual({ type: 'unlock' });
    expect(judged.of(restore, 1, record({ enabled: undefined }), undefined).action).toEqual({
      type: 'unlock',
    });
  });

  it('still skips on its first run what a request holding the lease before it did', () => {
    const judged = new RestoreJudgements();
    const skipped = judged.of(restore, 0, record({ unconfirmedGroups: ['g2'] }), undefined);
    expect(skipped.action).toBeUndefined();
    expect(skipped.notices.join(' ')).toContain('skipped drift finding f2');
  });
});
