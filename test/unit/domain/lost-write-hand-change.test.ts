import { describe, expect, it } from 'vitest';
import { applyRecordUpdate, type AccountRecord } from '../../../src/domain/account-record';
import {
  foundLaterEntries,
  judgeLostWrites,
  lostWritesAnsweredInPlace,
  type LostWrite,
  type MembershipEvidence,
} from '../../../src/domain/lost-writes';

/**
 * A lost grant that was never applied, and a member added by hand much later: the hand
 * change is never journaled as the service's (review 11; DESIGN invariants 1, 9, 11).
 */

const T0 = Date.parse('2026-11-22T08:00:00Z');
const HOUR = 60 * 60_000;
const grant: LostWrite = {
  change: 'member added',
  groupId: 'g1',
  groupName: 'Sales',
  requestId: 'r0',
  step: 0,
  at: new Date(T0).toISOString(),
  notInPlaceBefore: true,
};
const record: AccountRecord = {
  connector: 'entra',
  accountId: 'ada',
  targetId: 'u-ada',
  linkedAt: new Date(T0 - HOUR).toISOString(),
  assignedGroups: [],
  unconfirmedGroups: ['g1'],
  lostWrites: [grant],
};
const evidence = (over: Partial<MembershipEvidence>): MembershipEvidence => ({
  memberOf: new Set(),
  visible: true,
  unproven: new Set(),
  covered: new Set(['g1']),
  readAtMs: T0,
  refutes: false,
  by: 'request "r1" step 0: the read before its writes',
  ...over,
});

describe('Graph (reads lag): a lost grant never applied, the member added by hand a day later', () => {
  it('a read past the window that shows no member refutes it: the hand change finds nothing', () => {
    const r1 = judgeLostWrites([grant], evidence({ readAtMs: T0 + 2 * HOUR }), undefined, 30_000);
    expect(r1.found).toEqual([]);
    expect(r1.settled).toEqual(['g1']);
    expect(r1.notices.join('\n')).toContain('it was not applied');
    const after = applyRecordUpdate(record, 'entra', 'ada', { settledLostWrites: r1.settled });
    expect(after?.lostWrites).toBeUndefined();
    const r2 = judgeLostWrites(
      after?.lostWrites,
      evidence({ readAtMs: T0 + 26 * HOUR, memberOf: new Set(['g1']) }),
      undefined,
      30_000,
    );
    expect(foundLaterEntries('entra', 'ada', r2.found)).toEqual([]);
  });

  it('with no read of the group in between, a finding past the age bound is settled, not journaled', () => {
    const r2 = judgeLostWrites(
      [grant],
      evidence({ readAtMs: T0 + 26 * HOUR, memberOf: new Set(['g1']) }),
      undefined,
      30_000,
    );
    expect(r2.found).toEqual([]);
    expect(r2.settled).toEqual(['g1']);
    expect(r2.notices.join('\n')).toContain('more than an hour after that write');
    // Settled, not granted: the group is not put into assignedGroups.
    const after = applyRecordUpdate(record, 'entra', 'ada', { settledLostWrites: r2.settled });
    expect(after?.lostWrites).toBeUndefined();
    expect(after?.assignedGroups).toEqual([]);
  });

  it('is still found within the age bound', () => {
    const found = judgeLostWrites(
      [grant],
      evidence({ readAtMs: T0 + HOUR - 1, memberOf: new Set(['g1']) }),
      undefined,
      30_000,
    );
    expect(found.found.map((f) => f.write.requestId)).toEqual(['r0']);
  });

  it('an "already a member" answer past the age bound finds nothing', () => {
    const answered = lostWritesAnsweredInPlace(
      [grant],
      [{ groupId: 'g1', change: 'added' }],
      'request "r2" step 0: the target answer',
      T0 + 26 * HOUR,
    );
    expect(answered.found).toEqual([]);
    expect(answered.settled).toEqual(['g1']);
    expect(answered.notices.join('\n')).toContain('more than an hour after that write');
  });
});
