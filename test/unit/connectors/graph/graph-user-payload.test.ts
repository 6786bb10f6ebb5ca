import { describe, expect, it } from 'vitest';
import {
  toGraphUser,
  toGraphUserChanges,
  toMailNickname,
  toTargetAccount,
  toUserPrincipalName,
} from '../../../../src/connectors/graph/graph-user-payload';

describe('toUserPrincipalName', () => {
  it('appends the UPN domain to a bare name', () => {
    expect(toUserPrincipalName('jdoe', 'contoso.example')).toBe('jdoe@contoso.example');
  });

  it('keeps an account ID that has a domain', () => {
    expect(toUserPrincipalName(' jdoe@fabrikam.example ', 'contoso.example')).toBe(
      'jdoe@fabrikam.example',
    );
  });

  it('refuses a bare name when no UPN domain is configured', () => {
    expect(() => toUserPrincipalName('jdoe', undefined)).toThrow(
      expect.objectContaining({ code: 'REQUEST_INVALID' }),
    );
  });
});

describe('toMailNickname', () => {
  it('is the part before the @', () => {
    expect(toMailNickname('jane.doe@contoso.example')).toBe('jane.doe');
  });

  it('folds accents and drops characters Graph refuses', () => {
    expect(toMailNickname('José.Nuñez (ext)@contoso.example')).toBe('Jose.Nunezext');
    expect(toMailNickname('a"b;c:d<e>f[g]h\\i,j@x.example')).toBe('abcdefghij');
  });

  it('trims and collapses dots and keeps at most 64 characters', () => {
    expect(toMailNickname('.a..b.@x.example')).toBe('a.b');
    expect(toMailNickname(`${'x'.repeat(70)}@x.example`)).toHaveLength(64);
  });

  it('refuses an account ID with nothing usable', () => {
    expect(() => toMailNickname('日本@x.example')).toThrow(
      expect.objectContaining({ code: 'REQUEST_INVALID' }),
    );
  });
});

describe('toGraphUser', () => {
  it('has every property POST /users requires, enabled, and the mapped attributes', () => {
    const body = toGraphUser(
      {
        accountId: 'jdoe@contoso.example',
        displayName: 'Jane Doe',
        givenName: 'Jane',
        familyName: 'Doe',
        attributes: { dept: 'Sales' },
      },
      'jdoe@contoso.example',
      'Secret-123',
      { department: 'dept' },
    );
    expect(body).toEqual({
      department: 'Sales',
      givenName: 'Jane',
      surname: 'Doe',
      displayName: 'Jane Doe',
      userPrincipalName: 'jdoe@contoso.example',
      mailNickname: 'jdoe',
      accountEnabled: true,
      passwordProfile: { password: 'Secret-123', forceChangePasswordNextSignIn: true },
    });
  });

  it('builds a display name when none is given', () => {
    expect(
      toGraphUser({ accountId: 'x', givenName: 'Jo' }, 'jo@c.example', 'p', {}).displayName,
    ).toBe('Jo');
    expect(toGraphUser({ accountId: 'x' }, 'jo@c.example', 'p', {}).displayName).toBe('jo');
  });
});

describe('toGraphUserChanges', () => {
  it('holds only what changes', () => {
    expect(
      toGraphUserChanges(
        { familyName: 'Smith', attributes: { dept: 'HR' } },
        { department: 'dept' },
      ),
    ).toEqual({
      department: 'HR',
      surname: 'Smith',
    });
    expect(toGraphUserChanges({}, {})).toEqual({});
  });
});

describe('toTargetAccount', () => {
  it('reads id, UPN, name and state', () => {
    expect(
      toTargetAccount({
        id: 'u1',
        userPrincipalName: 'a@b.example',
        displayName: 'A',
        accountEnabled: false,
      }),
    ).toEqual({ id: 'u1', accountId: 'a@b.example', displayName: 'A', enabled: false });
    expect(toTargetAccount({ id: 'u1' })).toBeUndefined();
  });

  it('leaves the state unknown when the answer does not carry accountEnabled', () => {
    // Graph returns accountEnabled only when $select names it (a create's answer never does):
    // a missing state must not read as enabled, or an unlock is "confirmed" by its absence.
    const account = toTargetAccount({ id: 'u1', userPrincipalName: 'a@b.example' });
    expect(account).toEqual({ id: 'u1', accountId: 'a@b.example' });
    expect(account?.enabled).toBeUndefined();
  });
});
