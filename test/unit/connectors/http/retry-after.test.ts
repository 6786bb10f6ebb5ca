import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../../src/connectors/http/retry-after';

const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');

describe('parseRetryAfter', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['0', 0],
    ['2', 2000],
    [' 7 ', 7000],
    ['1.5', 1500],
    ['Wed, 21 Oct 2026 07:28:03 GMT', 3000],
    ['Wed, 21 Oct 2026 07:27:00 GMT', 0],
    ['soon', undefined],
    ['-1', undefined],
  ])('%j -> %j ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});
