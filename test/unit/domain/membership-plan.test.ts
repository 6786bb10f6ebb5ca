import { describe, expect, it } from 'vitest';
import { planMembershipChange } from '../../../src/domain/membership-plan';

describe('planMembershipChange', () => {
  it.each([
    [
      'grant a new group',
      [],
      ['a'],
      [],
      { add: ['a'], remove: [], unchanged: [], expected: ['a'] },
    ],
    [
      'grant a group already held',
      ['a'],
      ['a'],
      [],
      { add: [], remove: [], unchanged: ['a'], expected: ['a'] },
    ],
    [
      'revoke a held group',
      ['a', 'b'],
      [],
      ['a'],
      { add: [], remove: ['a'], unchanged: [], expected: ['b'] },
    ],
    [
      'revoke a group not held',
      ['b'],
      [],
      ['a'],
      { add: [], remove: [], unchanged: ['a'], expected: ['b'] },
    ],
    [
      'mixed, with groups the request does not name kept',
      ['keep', 'old', 'same'],
      ['new', 'same'],
      ['old', 'gone'],
      {
        add: ['new'],
        remove: ['old'],
        unchanged: ['same', 'gone'],
        expected: ['keep', 'same', 'new'],
      },
    ],
    [
      'duplicates in the request',
      [],
      ['a', 'a'],
      [],
      { add: ['a'], remove: [], unchanged: [], expected: ['a'] },
    ],
    ['an empty request', ['x'], [], [], { add: [], remove: [], unchanged: [], expected: ['x'] }],
  ])('%s', (_name, current, grant, revoke, expected) => {
    expect(planMembershipChange(current, { grant, revoke })).toEqual(expected);
  });

  it('refuses a group both granted and revoked, naming it', () => {
    expect(() => planMembershipChange([], { grant: ['a', 'b'], revoke: ['b'] })).toThrow(
      expect.objectContaining({ code: 'REQUEST_INVALID', object: 'b' }),
    );
  });
});
