import { describe, expect, it } from 'vitest';
import { planGoneRoles } from '../../../src/domain/gone-roles';
import type { GroupRef } from '../../../src/domain/group';
import { planMembershipWrites } from '../../../src/domain/membership-plan';

const SINCE = '2026-11-20T08:00:00.000Z';
const SALES: GroupRef = { id: 's', displayName: 'Sales', writable: true };
const LEGAL: GroupRef = { id: 'l', displayName: 'Legal', writable: true, goneSince: SINCE };
const DYN: GroupRef = {
  id: 'd',
  displayName: 'Dynamic',
  writable: false,
  notWritableReason: 'dynamic membership',
  goneSince: SINCE,
};

const context = {
  named: [SALES],
  seen: new Set<string>(),
  readAll: true,
  read: true,
  assigned: [] as string[],
};

describe('setMemberships and roles marked gone', () => {
  it('does not reconcile a gone role nobody saw the account in, and does not read it', () => {
    const plan = planMembershipWrites('setMemberships', [SALES], [SALES, LEGAL]);
    expect(plan.removeIfPresent).toEqual([]);
    expect(plan.expected).toEqual({ s: true });
    expect(plan.gone).toEqual([LEGAL]);
    expect(planGoneRoles(plan, context).notices).toEqual([]);
    expect(plan.removeIfPresent).toEqual([]);
  });

  it('takes the account out of a writable gone role the read shows it in, and verifies it left', () => {
    const plan = planMembershipWrites('setMemberships', [SALES], [SALES, LEGAL, DYN]);
    const { notices } = planGoneRoles(plan, { ...context, seen: new Set(['l', 'd']) });
    expect(plan.removeIfPresent).toEqual(['l']);
    expect(plan.expected).toEqual({ s: true, l: false });
    expect(notices).toEqual([
      expect.stringContaining(
        `Legal (l) is marked gone in the role catalogue (since ${SINCE}), yet the target shows the account in it: taken out`,
      ),
      expect.stringContaining('Dynamic (d) is marked gone in the role catalogue'),
    ]);
    expect(notices[1]).toContain(
      'left alone, the service may not write its members (dynamic membership)',
    );
  });

  it('names a gone role the service granted that a read of named groups only could not cover', () => {
    const plan = planMembershipWrites('setMemberships', [SALES], [SALES, LEGAL]);
    const { notices } = planGoneRoles(plan, { ...context, readAll: false, assigned: ['l'] });
    expect(plan.removeIfPresent).toEqual([]);
    expect(notices).toEqual([
      expect.stringContaining('could not tell whether the target still has the group'),
    ]);
  });

  it('names a gone role the request names, which is written all the same', () => {
    const plan = planMembershipWrites('setMemberships', [SALES, LEGAL], [SALES, LEGAL]);
    expect(plan.add).toEqual(['s', 'l']);
    const { notices } = planGoneRoles(plan, { ...context, named: [SALES, LEGAL] });
    expect(notices).toEqual([
      expect.stringContaining('Legal (l) is marked gone in the role catalogue (since'),
    ]);
    expect(notices[0]).toContain('written as named all the same');
  });
});
