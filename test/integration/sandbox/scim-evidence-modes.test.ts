import { afterEach, describe, expect, it } from 'vitest';
import { startScimSandbox, type ScimSandbox } from '../../../src/sandbox/scim/index.js';

/*
 * The SCIM sandbox's modes for the compatibility run's controls and the quarantine probe:
 * a co that matches nothing, groups made in the application only, 404s that are not SCIM
 * errors, and the application's own 403.
 */
let sandbox: ScimSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function call(path: string, method = 'GET', body?: unknown) {
  const response = await fetch(`${sandbox!.endpoint}${path}`, {
    method,
    headers: { 'content-type': 'application/scim+json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
}

const filter = (expression: string) => `filter=${encodeURIComponent(expression)}`;

describe('SCIM sandbox evidence modes', () => {
  it('coMatchesNothing: co answers 200 with an empty list, eq still finds', async () => {
    sandbox = await startScimSandbox({ quirks: { coMatchesNothing: true } });
    sandbox.seedGroups([{ displayName: 'Engineering' }]);
    const co = await call(`/Groups?${filter('displayName co "gine"')}`);
    expect(co.status).toBe(200);
    expect(JSON.parse(co.text)).toMatchObject({ totalResults: 0, Resources: [] });
    const eq = await call(`/Groups?${filter('displayName eq "Engineering"')}`);
    expect(JSON.parse(eq.text)).toMatchObject({ totalResults: 1 });
  });

  it('groupCreateNotAllowed: POST /Groups answers 405 and creates nothing', async () => {
    sandbox = await startScimSandbox({ quirks: { groupCreateNotAllowed: true } });
    const created = await call('/Groups', 'POST', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'New',
    });
    expect(created.status).toBe(405);
    expect(sandbox.listGroups()).toEqual([]);
    expect(sandbox.truthLog()).toEqual([]);
  });

  it.each([
    ['empty', (a: { text: string }) => expect(a.text).toBe('')],
    [
      'scim11Error',
      (a: { text: string }) =>
        expect(JSON.parse(a.text)).toEqual({
          Errors: [{ description: 'Resource not found', code: '404' }],
        }),
    ],
    ['html', (a: { type: string | null }) => expect(a.type).toMatch(/^text\/html/)],
  ] as const)(
    'notFoundAnswer %s: a missing user or group by id answers 404 so',
    async (shape, check) => {
      sandbox = await startScimSandbox({ quirks: { notFoundAnswer: shape } });
      for (const path of ['/Users/no-such-id', '/Groups/no-such-id']) {
        const answer = await call(path);
        expect(answer.status).toBe(404);
        check(answer);
      }
      // Filters keep their SCIM answers.
      const list = await call(`/Users?${filter('userName eq "nobody"')}`);
      expect(JSON.parse(list.text)).toMatchObject({ totalResults: 0 });
    },
  );

  it('injectForbidden: the next calls answer the SCIM 403, then the server answers again', async () => {
    sandbox = await startScimSandbox();
    sandbox.injectForbidden(1);
    const refused = await call('/Users');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ status: '403' });
    expect((await call('/Users')).status).toBe(200);
  });
});
