import { describe, expect, it } from 'vitest';
import { latestSignIn, readScimLastLogon, resolvePath } from '../../../src/domain/last-logon';

const iso = '2026-03-04T05:06:07.000Z';

describe('readScimLastLogon (spec: Last-logon value, connector A)', () => {
  it.each([
    ['lastLogin', { lastLogin: iso }, undefined, 'lastLogin'],
    ['lastLogon', { lastLogon: iso }, undefined, 'lastLogon'],
    ['lastLoginTime', { lastLoginTime: iso }, undefined, 'lastLoginTime'],
    ['loginTime', { loginTime: iso }, undefined, 'loginTime'],
    ['a case-insensitive name', { LASTLOGON: iso }, undefined, 'lastLogon'],
    [
      'the configured attribute first',
      { lastLogin: '2020-01-01T00:00:00Z', seenAt: iso },
      'seenAt',
      'seenAt',
    ],
    ['a dotted path', { activity: { last: { at: iso } } }, 'activity.last.at', 'activity.last.at'],
    [
      'a path through a schema URN that holds dots',
      { 'urn:example:2.0:Activity': { lastSeen: iso } },
      'urn:example:2.0:Activity.lastSeen',
      'urn:example:2.0:Activity.lastSeen',
    ],
    [
      'the fallback names when the configured one is empty',
      { seenAt: '', loginTime: iso },
      'seenAt',
      'loginTime',
    ],
    ['epoch seconds', { lastLogin: Date.parse(iso) / 1000 }, undefined, 'lastLogin'],
    [
      'epoch milliseconds as a string',
      { lastLogin: String(Date.parse(iso)) },
      undefined,
      'lastLogin',
    ],
  ])('reads %s', (_name, resource, configured, source) => {
    expect(readScimLastLogon(resource, configured)).toEqual({ value: iso, source });
  });

  it.each([
    ['nothing', {}],
    ['an unreadable value', { lastLogin: 'never' }],
    ['null', { lastLogon: null }],
  ])('finds none in %s', (_name, resource) => {
    expect(readScimLastLogon(resource)).toBeUndefined();
  });
});

describe('latestSignIn (spec: Last-logon value, connector B)', () => {
  it.each([
    [{ lastSignInDateTime: '2026-01-01T00:00:00Z' }, '2026-01-01T00:00:00.000Z'],
    [
      {
        lastSignInDateTime: '2026-01-01T00:00:00Z',
        lastNonInteractiveSignInDateTime: '2026-03-01T00:00:00Z',
        lastSuccessfulSignInDateTime: '2026-02-01T00:00:00Z',
      },
      '2026-03-01T00:00:00.000Z',
    ],
    [
      { lastSignInDateTime: null, lastSuccessfulSignInDateTime: '2026-02-01T00:00:00Z' },
      '2026-02-01T00:00:00.000Z',
    ],
    [{ lastSignInDateTime: null }, undefined],
    [null, undefined],
  ])('%j -> %s', (activity, expected) => {
    expect(latestSignIn(activity)).toBe(expected);
  });
});

describe('resolvePath', () => {
  it('prefers the longest key that matches', () => {
    expect(resolvePath({ a: { b: 1 }, 'a.b': 2 }, 'a.b')).toBe(2);
    expect(resolvePath({ a: { b: 1 } }, 'a.b')).toBe(1);
    expect(resolvePath({ a: 1 }, 'a.b')).toBeUndefined();
  });
});
