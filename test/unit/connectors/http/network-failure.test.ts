import { describe, expect, it } from 'vitest';
import { mayHaveBeenSent, toNetworkError } from '../../../../src/connectors/http/network-failure';

function failure(code: string | undefined, nested = false): Error {
  const error = new Error('boom');
  if (code === undefined) return error;
  return nested
    ? Object.assign(new TypeError('fetch failed'), { cause: Object.assign(error, { code }) })
    : Object.assign(error, { code });
}

describe('mayHaveBeenSent', () => {
  it.each([
    ['ECONNREFUSED', false],
    ['ENOTFOUND', false],
    ['EAI_AGAIN', false],
    ['UND_ERR_CONNECT_TIMEOUT', false],
    ['EHOSTUNREACH', false],
    ['ECONNRESET', true],
    ['EPIPE', true],
    ['UND_ERR_SOCKET', true],
    ['UND_ERR_HEADERS_TIMEOUT', true],
    ['UND_ERR_BODY_TIMEOUT', true],
  ])('%s: %s', (code, expected) => {
    expect(mayHaveBeenSent(failure(code))).toBe(expected);
    expect(mayHaveBeenSent(failure(code, true))).toBe(expected);
  });

  it('assumes an unknown failure may have come after sending', () => {
    expect(mayHaveBeenSent(failure(undefined))).toBe(true);
  });
});

describe('toNetworkError', () => {
  it('names a timeout TARGET_TIMEOUT and anything else TARGET_UNREACHABLE, saying whether it may have been applied', () => {
    expect(toNetworkError(failure('UND_ERR_HEADERS_TIMEOUT'), 'hr', 'GET /x', true)).toMatchObject({
      code: 'TARGET_TIMEOUT',
      retryable: true,
      object: 'hr',
      details: { maybeApplied: true },
      message: 'hr: GET /x timed out (UND_ERR_HEADERS_TIMEOUT)',
    });
    expect(toNetworkError(failure('ECONNREFUSED'), 'hr', 'GET /x', false)).toMatchObject({
      code: 'TARGET_UNREACHABLE',
      details: { maybeApplied: false },
      message: 'hr: GET /x failed (ECONNREFUSED)',
    });
  });
});
