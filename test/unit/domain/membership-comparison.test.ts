import { describe, expect, it } from 'vitest';
import { compareMemberships } from '../../../src/domain/membership-comparison';

describe('compareMemberships', () => {
  it.each([
    ['equal sets in any order', ['a', 'b'], ['b', 'a'], undefined, [], []],
    ['a missing group', ['a', 'b'], ['a'], undefined, ['b'], []],
    ['an unexpected group', ['a'], ['a', 'x'], undefined, [], ['x']],
    ['both', ['a'], ['x'], undefined, ['a'], ['x']],
    ['only groups in scope are judged', ['a', 'b'], ['x', 'b'], ['b'], [], []],
    ['a missing group in scope', ['a', 'b'], ['x'], ['b', 'x'], ['b'], ['x']],
  ])('%s', (_name, expected, actual, scope, missing, unexpected) => {
    const result = compareMemberships(expected, actual, scope);
    expect(result).toEqual({
      missing,
      unexpected,
      matches: missing.length + unexpected.length === 0,
    });
  });
});
