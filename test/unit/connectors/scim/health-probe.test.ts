import { describe, expect, it } from 'vitest';
import { judgeScimProbe } from '../../../../src/connectors/scim/health-probe';
import type { HttpResult } from '../../../../src/connectors/http/transport';

function answer(status: number, body: unknown, contentType = 'application/scim+json'): HttpResult {
  return {
    status,
    headers: { 'content-type': contentType },
    body,
    maybeAppliedBefore: false,
    throttledWaitMs: 0,
    throttledAnswers: 0,
    text: body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
    describe: 'GET /scim/v2/Users?filter=...',
    attempts: 1,
  };
}

const LIST = { schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'] };
const ERROR = { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'] };

describe('judgeScimProbe', () => {
  it('takes a ListResponse (numbers as strings too) for healthy', () => {
    expect(judgeScimProbe(answer(200, { ...LIST, totalResults: 0, Resources: [] }))).toMatchObject({
      healthy: true,
    });
    expect(judgeScimProbe(answer(200, { ...LIST, totalResults: '0' }))).toMatchObject({
      healthy: true,
    });
  });

  it("takes the server's SCIM 404 to a filter that matches nothing for healthy", () => {
    expect(judgeScimProbe(answer(404, { ...ERROR, status: '404' }))).toMatchObject({
      healthy: true,
    });
  });

  it('takes the 404 shape the connector is set to take (notFoundAnswer), and only that one', () => {
    const empty = answer(404, undefined, 'text/plain');
    expect(judgeScimProbe(empty)).toMatchObject({ healthy: false });
    expect(judgeScimProbe(empty, 'empty')).toMatchObject({ healthy: true });
    const html = answer(404, '<html>Not Found</html>', 'text/html');
    expect(judgeScimProbe(html, 'empty')).toMatchObject({ healthy: false });
  });

  it.each([
    [429, { ...ERROR, status: '429' }, 'application/scim+json', 'TARGET_THROTTLED'],
    [403, { ...ERROR, status: '403' }, 'application/scim+json', 'TARGET_FORBIDDEN'],
    [401, undefined, 'text/plain', 'TARGET_AUTH_FAILED'],
    [503, undefined, 'text/html', 'TARGET_UNAVAILABLE'],
    [404, undefined, 'text/html', 'TARGET_RESPONSE_INVALID'],
    [200, undefined, 'text/html', 'TARGET_RESPONSE_INVALID'],
    [200, { ok: true }, 'application/json', 'TARGET_RESPONSE_INVALID'],
  ])('keeps a %i (%s, %s) as %s', (status, body, type, code) => {
    expect(judgeScimProbe(answer(status, body, type))).toMatchObject({ healthy: false, code });
  });
});
