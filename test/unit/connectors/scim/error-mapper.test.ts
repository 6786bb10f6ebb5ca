import { describe, expect, it } from 'vitest';
import type { HttpResult } from '../../../../src/connectors/http/transport';
import { mapScimError } from '../../../../src/connectors/scim/error-mapper';

function answer(
  status: number,
  body?: Record<string, unknown>,
  describe = 'POST https://app.example/scim/v2/Users',
): HttpResult {
  return {
    status,
    headers: {},
    body,
    text: body === undefined ? '' : JSON.stringify(body),
    describe,
    attempts: 1,
    maybeAppliedBefore: false,
    throttledWaitMs: status === 429 ? 125_000 : 0,
    throttledAnswers: status === 429 ? 14 : 0,
  };
}

const context = {
  connector: 'hr',
  subject: 'account "jdoe"',
  notFound: 'ACCOUNT_NOT_FOUND' as const,
  object: 'jdoe',
};

describe('mapScimError', () => {
  it.each([
    [400, 'invalidFilter', 'SCIM_FILTER_UNSUPPORTED', false],
    [400, 'invalidValue', 'SCIM_INVALID_VALUE', false],
    [400, 'noTarget', 'SCIM_INVALID_VALUE', false],
    [400, 'mutability', 'SCIM_MUTABILITY', false],
    [400, undefined, 'SCIM_REQUEST_REJECTED', false],
    [401, undefined, 'TARGET_AUTH_FAILED', false],
    [403, undefined, 'TARGET_FORBIDDEN', false],
    [404, undefined, 'TARGET_RESPONSE_INVALID', false],
    [409, 'uniqueness', 'SCIM_UNIQUENESS_CONFLICT', false],
    [409, undefined, 'SCIM_UNIQUENESS_CONFLICT', false],
    [429, undefined, 'TARGET_THROTTLED', false],
    [500, undefined, 'TARGET_UNAVAILABLE', true],
    [503, undefined, 'TARGET_UNAVAILABLE', true],
  ])('%i %s -> %s (retryable %s)', (status, scimType, code, retryable) => {
    const error = mapScimError(
      answer(status, scimType === undefined ? undefined : { scimType, detail: 'x' }),
      context,
    );
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(status);
    expect(error.object).toBe('jdoe');
  });

  it('takes a 404 for "missing" only with a SCIM error body: a gateway page proves nothing', () => {
    const scim = { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], detail: 'gone' };
    expect(mapScimError(answer(404, scim), context).code).toBe('ACCOUNT_NOT_FOUND');
    expect(mapScimError(answer(404, { status: '404', detail: 'x' }), context).code).toBe(
      'ACCOUNT_NOT_FOUND',
    );
    const page = mapScimError(answer(404, { error: 'Not Found' }), context);
    expect(page.code).toBe('TARGET_RESPONSE_INVALID');
    expect(page.message).toContain('without a SCIM error body');
    expect(page.message).toContain("check the connector's base URL");
    expect(mapScimError(answer(404), context).code).toBe('TARGET_RESPONSE_INVALID');
  });

  it('says how long a throttled call waited before its 429 became the answer', () => {
    const error = mapScimError({ ...answer(429), maxThrottleWaitMs: 120_000 }, context);
    expect(error.message).toContain(
      '(throttled: waited 125 s over 14 answers 429; the limit is maxThrottleWaitSeconds = 120)',
    );
    expect(error).toMatchObject({
      code: 'TARGET_THROTTLED',
      retryable: false,
      details: { throttledWaitMs: 125_000, throttledAnswers: 14 },
    });
  });

  it('says a refusal or 429 may come after an attempt that was applied, its answer lost', () => {
    const afterLost = { ...answer(429), maybeAppliedBefore: true };
    expect(mapScimError(afterLost, context).details?.maybeApplied).toBe(true);
    expect(mapScimError(answer(429), context).details?.maybeApplied).toBeUndefined();
  });

  it('maps 405/501 on PATCH to SCIM_PATCH_UNSUPPORTED', () => {
    expect(
      mapScimError(answer(501, undefined, 'PATCH https://a/scim/v2/Users/1'), context).code,
    ).toBe('SCIM_PATCH_UNSUPPORTED');
    expect(mapScimError(answer(405, undefined, 'GET https://a/scim/v2/Users'), context).code).toBe(
      'SCIM_REQUEST_REJECTED',
    );
  });

  it('names the connector, the call, the object and what the server said', () => {
    const error = mapScimError(
      answer(400, { scimType: 'invalidValue', detail: 'bad member value' }),
      context,
    );
    expect(error.message).toBe(
      'connector "hr": POST https://app.example/scim/v2/Users for account "jdoe" answered 400 invalidValue: bad member value',
    );
  });

  it('does not branch on message text', () => {
    const a = mapScimError(
      answer(400, { scimType: 'invalidFilter', detail: 'uniqueness!' }),
      context,
    );
    expect(a.code).toBe('SCIM_FILTER_UNSUPPORTED');
  });
});
