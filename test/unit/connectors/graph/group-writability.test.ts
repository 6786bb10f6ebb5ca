import { describe, expect, it } from 'vitest';
import { notWritableReason, toGroupRef } from '../../../../src/connectors/graph/group-writability';

const plain = { canWriteRoleAssignable: false };

describe('notWritableReason', () => {
  it('accepts a plain security group and a Microsoft 365 group', () => {
    expect(
      notWritableReason({ securityEnabled: true, mailEnabled: false, groupTypes: [] }, plain),
    ).toBeUndefined();
    expect(
      notWritableReason({ mailEnabled: true, groupTypes: ['Unified'] }, plain),
    ).toBeUndefined();
  });

  it.each([
    [
      { groupTypes: ['DynamicMembership'], membershipRule: 'user.department -eq "HR"' },
      'dynamic membership',
    ],
    [{ onPremisesSyncEnabled: true }, 'on-premises'],
    [{ mailEnabled: true, securityEnabled: true }, 'mail-enabled security group'],
    [{ mailEnabled: true, securityEnabled: false }, 'distribution list'],
    [{ isAssignableToRole: true }, 'role-assignable'],
  ])('refuses %j', (group, reason) => {
    expect(notWritableReason(group, plain)).toContain(reason);
  });

  it('accepts a role-assignable group when the app may manage roles', () => {
    expect(
      notWritableReason({ isAssignableToRole: true }, { canWriteRoleAssignable: true }),
    ).toBeUndefined();
  });
});

describe('toGroupRef', () => {
  it('marks writability for the catalogue', () => {
    expect(toGroupRef({ id: 'g1', displayName: 'Sales' }, plain)).toEqual({
      id: 'g1',
      displayName: 'Sales',
      writable: true,
    });
    expect(
      toGroupRef({ id: 'g2', displayName: 'HR', onPremisesSyncEnabled: true }, plain),
    ).toMatchObject({
      writable: false,
      notWritableReason: expect.stringContaining('on-premises') as unknown,
    });
  });
});
