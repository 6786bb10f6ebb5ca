import { describe, expect, it } from 'vitest';
import { createAccount } from '../../../../src/connectors/graph/graph-accounts';
import type { GraphContext } from '../../../../src/connectors/graph/graph-context';
import type { HttpResult } from '../../../../src/connectors/http/transport';
import { silentLogger } from '../../../../src/domain/logger';

/** A context whose one call, the create, gets `answer` (what a proxy in front of Graph may send). */
function answeredWith(answer: Pick<HttpResult, 'status' | 'body' | 'text'>): GraphContext {
  const result: HttpResult = {
    ...answer,
    headers: {},
    describe: 'POST https://graph.microsoft.com/v1.0/users',
    attempts: 1,
    maybeAppliedBefore: false,
    throttledWaitMs: 0,
    throttledAnswers: 0,
  };
  return {
    settings: { name: 'entra', upnDomain: 'contoso.example', mapping: {} },
    http: { send: async () => result },
    logger: silentLogger,
    transientSecrets: new Set<string>(),
  } as unknown as GraphContext;
}

describe('a Graph create answered 201 that does not say which user it made', () => {
  it.each([
    [
      { status: 201, body: undefined, text: '<html>upstream reset</html>' },
      'with a body that is not JSON',
    ],
    [{ status: 201, body: undefined, text: '' }, 'without a user'],
    [{ status: 201, body: { value: [] }, text: '{"value":[]}' }, 'without a user'],
  ])(
    'is unconfirmed, for a read to settle, not a failure that leaves the account untold (%#)',
    async (answer, fault) => {
      const created = await createAccount(
        answeredWith(answer),
        { accountId: 'jdoe' },
        'S3cret!pass',
      );
      expect(created).toMatchObject({
        outcome: 'unconfirmed',
        maybeOurs: true,
        fault: `answered 201 ${fault}`,
        error: {
          code: 'TARGET_RESPONSE_INVALID',
          object: 'jdoe@contoso.example',
          message: expect.stringContaining('connector "entra"'),
        },
      });
      expect(JSON.stringify(created)).not.toContain('S3cret');
    },
  );
});
