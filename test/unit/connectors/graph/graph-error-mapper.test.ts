import { describe, expect, it } from 'vitest';
import {
  mapGraphError,
  type GraphAnswer,
} from '../../../../src/connectors/graph/graph-error-mapper';

function answer(
  status: number,
  code?: string,
  message = 'Graph says no',
  headers: Record<string, string> = {},
): GraphAnswer {
  return {
    status,
    headers,
    body:
      code === undefined
        ? undefined
        : { error: { code, message, innerError: { 'request-id': 'r1' } } },
    describe: 'GET https://graph.example/v1.0/users',
  };
}

const context = {
  connector: 'entra',
  task: 'writeMemberships' as const,
  subject: 'group "Sales (g1)"',
  object: 'g1',
  notFound: 'GROUP_NOT_FOUND' as const,
};

describe('mapGraphError', () => {
  it('403 Authorization_RequestDenied names the permission of the spec table', () => {
    const error = mapGraphError(
      answer(
        403,
        'Authorization_RequestDenied',
        'Insufficient privileges to complete the operation.',
      ),
      context,
    );
    expect(error.code).toBe('GRAPH_PERMISSION_MISSING');
    expect(error.message).toContain('GroupMember.ReadWrite.All');
    expect(error.message).toContain('connector "entra"');
    expect(error.details).toMatchObject({
      permission: 'GroupMember.ReadWrite.All',
      graphCode: 'Authorization_RequestDenied',
    });
  });

  it('another 403 is forbidden, still hinting the permission', () => {
    const error = mapGraphError(answer(403, 'Forbidden'), { ...context, task: 'readAccounts' });
    expect(error.code).toBe('TARGET_FORBIDDEN');
    expect(error.message).toContain('User.Read.All');
  });

  it('429 once the throttle wait is spent: TARGET_THROTTLED, not retried, saying how long it waited', () => {
    const error = mapGraphError(
      {
        ...answer(429, 'TooManyRequests', 'slow down', { 'retry-after': '7' }),
        throttledWaitMs: 121_000,
        throttledAnswers: 9,
        maxThrottleWaitMs: 120_000,
      },
      context,
    );
    expect(error).toMatchObject({ code: 'TARGET_THROTTLED', retryable: false, status: 429 });
    expect(error.details).toMatchObject({
      retryAfter: '7',
      throttledWaitMs: 121_000,
      throttledAnswers: 9,
    });
    expect(error.message).toContain(
      'answered 429 TooManyRequests: slow down (throttled: waited 121 s over 9 answers 429; the limit is maxThrottleWaitSeconds = 120)',
    );
  });

  it('404 means what the call was about', () => {
    expect(mapGraphError(answer(404, 'Request_ResourceNotFound'), context).code).toBe(
      'GROUP_NOT_FOUND',
    );
    expect(
      mapGraphError(answer(404, 'Request_ResourceNotFound'), {
        ...context,
        notFound: 'ACCOUNT_NOT_FOUND',
      }).code,
    ).toBe('ACCOUNT_NOT_FOUND');
  });

  it.each([
    [401, 'InvalidAuthenticationToken', 'TARGET_AUTH_FAILED', false],
    [400, 'Request_BadRequest', 'GRAPH_REQUEST_REJECTED', false],
    [409, 'Conflict', 'GRAPH_CONFLICT', false],
    [503, 'ServiceUnavailable', 'TARGET_UNAVAILABLE', true],
    [504, undefined, 'TARGET_UNAVAILABLE', true],
    [302, undefined, 'TARGET_RESPONSE_INVALID', false],
  ])('%i %s -> %s', (status, code, expected, retryable) => {
    expect(mapGraphError(answer(status, code), context)).toMatchObject({
      code: expected,
      retryable,
    });
  });

  it('keys on the code, not the message text', () => {
    const error = mapGraphError(
      answer(403, 'Authorization_RequestDenied', 'something entirely different'),
      context,
    );
    expect(error.code).toBe('GRAPH_PERMISSION_MISSING');
    expect(
      mapGraphError(
        answer(403, 'Other', 'Insufficient privileges to complete the operation.'),
        context,
      ).code,
    ).toBe('TARGET_FORBIDDEN');
  });

  it('collects detail codes (ObjectConflict) for callers', () => {
    const body = {
      error: {
        code: 'Request_BadRequest',
        message: 'exists',
        details: [{ code: 'ObjectConflict' }],
      },
    };
    const error = mapGraphError({ ...answer(400), body }, context);
    expect(error.details).toMatchObject({ graphDetailCodes: ['ObjectConflict'] });
  });

  describe('a 403 Authorization_RequestDenied on an account write, by what the service read', () => {
    const denied = answer(
      403,
      'Authorization_RequestDenied',
      'Insufficient privileges to complete the operation.',
    );
    const write = {
      ...context,
      task: 'writeAccounts' as const,
      subject: 'account "a@contoso.example"',
      notFound: 'ACCOUNT_NOT_FOUND' as const,
    };

    it('the account holds a directory role: GRAPH_ACCOUNT_PRIVILEGED, naming the role', () => {
      const error = mapGraphError(denied, {
        ...write,
        forbidden: { kind: 'privileged-account', roles: ['Global Administrator'] },
      });
      expect(error.code).toBe('GRAPH_ACCOUNT_PRIVILEGED');
      expect(error.message).toContain('holds the directory role Global Administrator');
      expect(error.details).not.toHaveProperty('permission');
    });

    it('the token carries the permission and the account holds no role: forbidden for another reason', () => {
      const error = mapGraphError(denied, {
        ...write,
        forbidden: { kind: 'permission-held', by: 'User.ReadWrite.All' },
      });
      expect(error.code).toBe('TARGET_FORBIDDEN');
      expect(error.message).toContain("the token's roles claim carries User.ReadWrite.All");
    });

    it('nothing told the causes apart: both named, and why it could not tell', () => {
      const error = mapGraphError(denied, {
        ...write,
        forbidden: {
          kind: 'not-told',
          why: "the account's memberOf could not be read (TARGET_UNAVAILABLE)",
        },
      });
      expect(error.code).toBe('TARGET_FORBIDDEN');
      expect(error.message).toContain(
        'either the app lacks the application permission User.ReadWrite.All',
      );
      expect(error.message).toContain('could not tell which');
    });
  });
});
