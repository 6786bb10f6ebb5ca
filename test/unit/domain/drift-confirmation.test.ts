import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
import { confirmDrift } from '../../../src/domain/drift-confirmation';

const record: AccountRecord = {
  connector: 'graph',
  accountId: 'ada',
  targetId: 'u1',
  linkedAt: '2026-11-23T08:00:00.000Z',
  assignedGroups: ['g1'],
  enabled: true,
  enabledAt: '2026-11-23T08:00:00.000Z',
};
const recheck = (memberOf: Record<string, boolean>, extra = {}) => ({
  targetId: 'u1',
  memberOf,
  evidence: ['GET /users/u1/memberOf'],
  ...extra,
});

describe('confirmDrift', () => {
  it('confirms a membership drift only when the second read shows it too', () => {
    const added = {
      type: 'memberAddedOutside' as const,
      accountId: 'ada',
      targetId: 'u1',
      groupId: 'g2',
    };
    expect(confirmDrift(added, record, recheck({ g2: true })).verdict).toBe('confirmed');
    expect(confirmDrift(added, record, recheck({ g2: false })).verdict).toBe('refuted');
    expect(confirmDrift(added, record, recheck({})).verdict).toBe('unknown');
    const removed = {
      type: 'memberRemovedOutside' as const,
      accountId: 'ada',
      targetId: 'u1',
      groupId: 'g1',
    };
    expect(confirmDrift(removed, record, recheck({ g1: false })).verdict).toBe('confirmed');
    expect(confirmDrift(removed, record, recheck({ g1: true })).verdict).toBe('refuted');
  });

  it('refutes what the service has done since, and cannot tell about an account linked anew', () => {
    const added = {
      type: 'memberAddedOutside' as const,
      accountId: 'ada',
      targetId: 'u1',
      groupId: 'g1',
    };
    expect(confirmDrift(added, record, recheck({ g1: true })).verdict).toBe('refuted');
    const relinked = { ...record, targetId: 'u2' };
    expect(confirmDrift(added, relinked, recheck({ g1: true })).verdict).toBe('unknown');
    expect(confirmDrift(added, record, undefined).verdict).toBe('unknown');
  });

  it('takes the state the second read saw, and a deletion only on "not found"', () => {
    const state = { type: 'accountStateChangedOutside' as const, accountId: 'ada', targetId: 'u1' };
    expect(confirmDrift(state, record, recheck({}, { exists: true, enabled: false }))).toEqual({
      verdict: 'confirmed',
      subject: { ...state, expectedEnabled: true, observedEnabled: false },
    });
    expect(confirmDrift(state, record, recheck({}, { exists: true, enabled: true })).verdict).toBe(
      'refuted',
    );
    const deleted = { type: 'accountDeletedOutside' as const, accountId: 'ada', targetId: 'u1' };
    expect(confirmDrift(deleted, record, recheck({}, { exists: false })).verdict).toBe('confirmed');
    expect(confirmDrift(deleted, record, recheck({}, { exists: true })).verdict).toBe('refuted');
    expect(confirmDrift(deleted, record, recheck({})).verdict).toBe('unknown');
  });

  it('confirms an unlinked member while the service links no account by its name', () => {
    const unlinked = { type: 'unlinkedMember' as const, targetId: 'u9', groupId: 'g1' };
    expect(confirmDrift(unlinked, undefined, recheck({ g1: true })).verdict).toBe('confirmed');
    expect(confirmDrift(unlinked, record, recheck({ g1: true })).verdict).toBe('refuted');
  });
});
