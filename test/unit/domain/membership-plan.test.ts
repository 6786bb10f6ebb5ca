import { describe, expect, it } from 'vitest';
import type { GroupRef } from '../../../src/domain/group';
import { planMembershipWrites, removalsToWrite } from '../../../src/domain/membership-plan';

const A: GroupRef = { id: 'a', displayName: 'A', writable: true };
const B: GroupRef = { id: 'b', displayName: 'B' };
const DYN: GroupRef = { id: 'd', displayName: 'D', writable: false, notWritableReason: 'dynamic' };

describe('planMembershipWrites', () => {
  it('grant writes every named group, whatever a read says', () => {
    expect(planMembershipWrites('grant', [A, B, A], [])).toEqual({
      add: ['a', 'b'],
      remove: [],
      removeIfPresent: [],
      expected: { a: true, b: true },
      leftAlone: [],
      refused: [],
      gone: [],
      goneNamed: [],
    });
  });

  it('revoke writes every named group', () => {
    const plan = planMembershipWrites('revoke', [A], []);
    expect(plan.remove).toEqual(['a']);
    expect(plan.expected).toEqual({ a: false });
  });

  it('refuses named groups whose members may not be written', () => {
    expect(planMembershipWrites('grant', [A, DYN], []).refused).toEqual([DYN]);
  });

  it('setMemberships leaves non-writable managed groups alone and removes the other unwanted ones if present', () => {
    const plan = planMembershipWrites('setMemberships', [A], [A, B, DYN]);
    expect(plan.add).toEqual(['a']);
    expect(plan.removeIfPresent).toEqual(['b']);
    expect(plan.leftAlone).toEqual([DYN]);
    expect(plan.expected).toEqual({ a: true, b: false });
  });
});

describe('removalsToWrite', () => {
  it('removes what a read shows or what the service granted itself', () => {
    const plan = planMembershipWrites('setMemberships', [], [A, B, { id: 'c', displayName: 'C' }]);
    expect(removalsToWrite(plan, new Set(['a']), ['c'])).toEqual(['a', 'c']);
  });
});
