import { describe, expect, it } from 'vitest';
import {
  USER_SCHEMA,
  fromScimUser,
  toReplaceOperations,
  toScimUser,
  withPrimaryEmailAdded,
} from '../../../../src/connectors/scim/user-mapping';

const profile = {
  accountId: 'jdoe',
  displayName: 'Jane Doe',
  givenName: 'Jane',
  familyName: 'Doe',
  email: 'jane@example.com',
  attributes: { jobTitle: 'Engineer', employeeId: 42, costCenter: 'C1' },
};

describe('toScimUser (spec: attributes sent on create)', () => {
  it('sends the create table and the mapped simple attributes', () => {
    const user = toScimUser(profile, {
      title: 'jobTitle',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber': 'employeeId',
    });
    expect(user).toEqual({
      schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      userName: 'jdoe',
      displayName: 'Jane Doe',
      name: { givenName: 'Jane', familyName: 'Doe', formatted: 'Jane Doe' },
      active: true,
      emails: [{ value: 'jane@example.com', type: 'work', primary: true }],
      title: 'Engineer',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: 42 },
    });
  });

  it('sends password only when present', () => {
    expect(toScimUser(profile, {})).not.toHaveProperty('password');
    expect(toScimUser(profile, {}, '')).not.toHaveProperty('password');
    expect(toScimUser(profile, {}, 'Secret-123')).toHaveProperty('password', 'Secret-123');
  });

  it('leaves out what the profile does not have, and unmapped attributes', () => {
    expect(toScimUser({ accountId: 'x', attributes: { costCenter: 'C1' } }, {})).toEqual({
      schemas: [USER_SCHEMA],
      userName: 'x',
      active: true,
    });
  });
});

describe('toReplaceOperations (spec: change account)', () => {
  it('replaces each changed attribute', () => {
    expect(
      toReplaceOperations(
        {
          displayName: 'J D',
          familyName: 'D',
          email: 'j@x.example',
          attributes: { jobTitle: 'Lead' },
        },
        { title: 'jobTitle' },
      ),
    ).toEqual([
      { op: 'replace', path: 'displayName', value: 'J D' },
      { op: 'replace', path: 'name.familyName', value: 'D' },
      { op: 'replace', path: 'emails[primary eq true].value', value: 'j@x.example' },
      { op: 'replace', path: 'title', value: 'Lead' },
    ]);
  });

  it('replaces the whole e-mail list only with emailUpdateStyle wholeList', () => {
    expect(toReplaceOperations({ email: 'j@x.example' }, {}, 'wholeList')).toEqual([
      {
        op: 'replace',
        path: 'emails',
        value: [{ value: 'j@x.example', type: 'work', primary: true }],
      },
    ]);
  });

  it('adds the primary address instead where the value path matched nothing', () => {
    const ops = toReplaceOperations({ displayName: 'J', email: 'j@x.example' }, {});
    expect(withPrimaryEmailAdded(ops)).toEqual([
      { op: 'replace', path: 'displayName', value: 'J' },
      { op: 'add', path: 'emails', value: [{ value: 'j@x.example', type: 'work', primary: true }] },
    ]);
    expect(withPrimaryEmailAdded(toReplaceOperations({ displayName: 'J' }, {}))).toBeUndefined();
    expect(
      withPrimaryEmailAdded(toReplaceOperations({ email: 'j@x.example' }, {}, 'wholeList')),
    ).toBeUndefined();
  });

  it('plans nothing for no change', () => {
    expect(toReplaceOperations({}, { title: 'jobTitle' })).toEqual([]);
  });
});

describe('fromScimUser', () => {
  it.each([
    [{ id: '1', userName: 'a', active: true }, true],
    [{ id: '1', userName: 'a', active: false }, false],
    [{ id: '1', userName: 'a', active: 'False' }, false],
    [{ id: '1', userName: 'a', active: 'true' }, true],
    [{ id: '1', userName: 'a', Active: false }, false],
    [{ id: '1', userName: 'a', ACTIVE: 'True' }, true],
    // No `active`: unknown, never taken for enabled (a read-back would confirm an unlock by it).
    [{ id: '1', userName: 'a' }, undefined],
  ])('reads %j as enabled %s', (resource, enabled) => {
    expect(fromScimUser(resource).enabled).toBe(enabled);
  });

  it('reads attribute names in any case (RFC 7643 §2.1)', () => {
    expect(fromScimUser({ ID: '1', UserName: 'Ada', DisplayName: 'Ada L' })).toEqual({
      id: '1',
      accountId: 'Ada',
      displayName: 'Ada L',
    });
  });

  it('refuses a user without id or userName', () => {
    expect(() => fromScimUser({ userName: 'a' })).toThrow(/no id or userName/);
    expect(() => fromScimUser(undefined)).toThrow(/without a user/);
  });
});
