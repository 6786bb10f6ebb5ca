import { describe, expect, it } from 'vitest';
import { judgeGraphProbe } from '../../../../src/connectors/graph/health-probe';
import type { HttpResult } from '../../../../src/connectors/http/transport';

function answer(status: number, body: unknown, contentType = 'application/json'): HttpResult {
  return {
    status,
    headers: { 'content-type': contentType },
    body,
    maybeAppliedBefore: false,
    throttledWaitMs: 0,
    throttledAnswers: 0,
    text: typeof body === 'string' ? body : JSON.stringify(body),
    describe: 'GET /v1.0/users?$top=1&$select=id',
    attempts: 1,
  };
}

describe('judgeGraphProbe', () => {
  it('takes a 200 with a Graph collection for healthy', () => {
    expect(judgeGraphProbe(answer(200, { value: [] }))).toMatchObject({ healthy: true });
  });

  it('keeps a 429 as throttled', () => {
    const error = { error: { code: 'TooManyRequests', message: 'slow down' } };
    expect(judgeGraphProbe(answer(429, error))).toEqual({
      healthy: false,
      code: 'TARGET_THROTTLED',
      seen: expect.stringContaining('answered 429 TooManyRequests: throttled') as unknown,
    });
  });

  it('keeps a 403 as refused', () => {
    const error = { error: { code: 'Authorization_RequestDenied', message: 'no' } };
    expect(judgeGraphProbe(answer(403, error))).toMatchObject({
      healthy: false,
      code: 'TARGET_FORBIDDEN',
    });
  });

  it("keeps a gateway's HTML page, 404 or 200, as not Graph's answer", () => {
    for (const status of [404, 200]) {
      expect(judgeGraphProbe(answer(status, undefined, 'text/html'))).toEqual({
        healthy: false,
        code: 'TARGET_RESPONSE_INVALID',
        seen: expect.stringContaining("(text/html, not Graph's answer to the read)") as unknown,
      });
    }
  });
});
