import { describe, expect, it } from 'vitest';
import { applyRecordUpdate, type AccountRecord } from '../../../src/domain/account-record';
import {
  foundLaterEntries,
  judgeLostWrites,
  lostWritesAfter,
  lostWritesAnsweredInPlace,
  lostWritesOf,
  type LostWrite,
  type MembershipEvidence,
} from '../../../src/domain/lost-writes';
import { journalEntryKey } from '../../../src/domain/journal-entry';
import type { MembershipWriteAnswer } from '../../../src/domain/target-answers';

const T0 = Date.parse('2026-11-22T08:00:00Z');

const grant: LostWrite = {
  change: 'member added',
  groupId: 'g1',
  groupName: 'Sales',
  requestId: 'r0',
  step: 1,
  at: '2026-11-22T08:00:10.000Z',
  notInPlaceBefore: true,
  context: { correlationId: 'CHG-1' },
};

function evidence(over: Partial<MembershipEvidence> = {}): MembershipEvidence {
  return {
    memberOf: new Set(['g1']),
    visible: true,
    unproven: new Set(),
    covered: new Set(['g1']),
    readAtMs: T0 + 120_000,
    refutes: false,
    by: 'request "r1" step 0: the read before its writes',
    ...over,
  };
}

describe('judgeLostWrites', () => {
  it('finds a lost grant a read shows in place, when the read before it showed it not', () => {
    const found = judgeLostWrites([grant], evidence(), undefined, 30_000);
    expect(found.found).toEqual([
      { write: grant, by: evidence().by, at: new Date(T0 + 120_000).toISOString() },
    ]);
    expect(found.settled).toEqual(['g1']);
    expect(found.notices.join('\n')).toContain('journaled as that request');
  });

  it('settles without journaling one whose read before told nothing: someone else may have made it', () => {
    const found = judgeLostWrites(
      [{ ...grant, notInPlaceBefore: false }],
      evidence(),
      undefined,
      30_000,
    );
    expect(found.found).toEqual([]);
    expect(found.settled).toEqual(['g1']);
    expect(found.notices.join('\n')).toContain('not journaled as the service');
  });

  it('finds nothing in a read that may lag the service own opposite write of the group', () => {
    const revokedJustBefore = { g1: { member: false, at: new Date(T0 + 110_000).toISOString() } };
    const found = judgeLostWrites([grant], evidence(), revokedJustBefore, 30_000);
    expect(found).toEqual({ found: [], settled: [], notices: [] });
  });

  it('judges nothing a read did not cover, or that does not show the account', () => {
    expect(
      judgeLostWrites([grant], evidence({ covered: new Set() }), undefined, 0).settled,
    ).toEqual([]);
    expect(judgeLostWrites([grant], evidence({ visible: false }), undefined, 0).settled).toEqual(
      [],
    );
  });

  it('where reads show writes at once, a read that shows it not in place settles it: not applied', () => {
    const found = judgeLostWrites(
      [grant],
      evidence({ memberOf: new Set(), refutes: true }),
      undefined,
      0,
    );
    expect(found.found).toEqual([]);
    expect(found.settled).toEqual(['g1']);
    expect(found.notices.join('\n')).toContain('it was not applied');
  });

  it('where reads lag, a read within the window that does not show it settles nothing', () => {
    const found = judgeLostWrites([grant], evidence({ memberOf: new Set() }), undefined, 300_000);
    expect(found.settled).toEqual([]);
  });

  it('where reads lag, a read past the window that does not show it settles it: not applied', () => {
    // Read at +120 s, the grant sent at +10 s, the window 30 s: no replica still lags it.
    const found = judgeLostWrites([grant], evidence({ memberOf: new Set() }), undefined, 30_000);
    expect(found.found).toEqual([]);
    expect(found.settled).toEqual(['g1']);
    expect(found.notices.join('\n')).toContain('it was not applied');
  });

  it('a "not a member" nothing vouches for proves no lost revoke', () => {
    const revoke: LostWrite = { ...grant, change: 'member removed' };
    const found = judgeLostWrites(
      [revoke],
      evidence({ memberOf: new Set(), unproven: new Set(['g1']), refutes: true }),
      undefined,
      0,
    );
    expect(found.settled).toEqual([]);
  });
});

describe('lostWritesAnsweredInPlace', () => {
  it('finds the lost write whose change a write answered "already"', () => {
    const found = lostWritesAnsweredInPlace(
      [grant, { ...grant, groupId: 'g2', change: 'member removed' }],
      [
        { groupId: 'g1', change: 'added' },
        { groupId: 'g2', change: 'added' },
      ],
      'request "r1" step 0: the target answer',
      T0,
    );
    expect(found.found.map((f) => f.write.groupId)).toEqual(['g1']);
  });
});

describe('lostWritesOf', () => {
  const unanswered = (groupId: string, change: 'added' | 'removed'): MembershipWriteAnswer => ({
    groupId,
    groupName: groupId,
    change,
    outcome: 'unanswered',
    maybeOurs: true,
  });

  it('keeps what the state before showed, and leaves out a change in place already', () => {
    const before: Record<string, boolean | undefined> = { g1: false, g2: undefined, g3: true };
    const writes = lostWritesOf(
      [unanswered('g1', 'added'), unanswered('g2', 'added'), unanswered('g3', 'added')],
      (id) => before[id],
      { g1: 'Sales' },
      { requestId: 'r0', step: 2 },
      grant.at,
    );
    expect(writes.map((w) => [w.groupId, w.groupName, w.notInPlaceBefore])).toEqual([
      ['g1', 'Sales', true],
      ['g2', 'g2', false],
    ]);
  });
});

describe('foundLaterEntries', () => {
  it('journals under the sending request, step and time: the same row whoever finds it', () => {
    const [first] = foundLaterEntries('hr', 'ada', [{ write: grant, by: 'a', at: 'x' }]);
    const [second] = foundLaterEntries('hr', 'ADA', [{ write: grant, by: 'b', at: 'y' }]);
    expect(first).toMatchObject({
      key: journalEntryKey('r0', 1, 'member added', 'g1'),
      requestId: 'r0',
      step: 1,
      at: grant.at,
      correlationId: 'CHG-1',
      foundBy: 'a',
    });
    expect([second!.key, second!.at]).toEqual([first!.key, first!.at]);
  });
});

describe('the record', () => {
  const record: AccountRecord = {
    connector: 'hr',
    accountId: 'ada',
    targetId: 'u1',
    linkedAt: grant.at,
    assignedGroups: [],
  };

  it('keeps a lost write until a grant, revoke or finding of its group settles it', () => {
    const lost = applyRecordUpdate(record, 'hr', 'ada', {
      unconfirmedGroups: ['g1'],
      lostWrites: [grant],
    })!;
    expect(lost.lostWrites).toEqual([grant]);
    expect(applyRecordUpdate(lost, 'hr', 'ada', { settledLostWrites: ['g1'] })).not.toHaveProperty(
      'lostWrites',
    );
    const granted = applyRecordUpdate(lost, 'hr', 'ada', { granted: ['g1'], groupsAt: grant.at })!;
    expect(granted.lostWrites).toBeUndefined();
    expect(granted.unconfirmedGroups).toBeUndefined();
    expect(lostWritesAfter([grant], { revoked: ['g2'] })).toEqual([grant]);
  });

  it('forgets lost writes when the account ID is linked to another object', () => {
    const lost = applyRecordUpdate(record, 'hr', 'ada', { lostWrites: [grant] })!;
    const relinked = applyRecordUpdate(lost, 'hr', 'ada', {
      link: { targetId: 'u2', linkedAt: grant.at },
    })!;
    expect(relinked.lostWrites).toBeUndefined();
  });
});
