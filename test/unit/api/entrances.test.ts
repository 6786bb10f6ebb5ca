import { HttpRequest, InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { parseClientPrincipal } from '../../../src/api/caller';
import { callerOf, keyEntrance, signedInEntrance } from '../../../src/api/entrances';

/** The header App Service Authentication sets for a signed-in caller (Entra ID, v2 token). */
function principalHeader(roles: string[], extra: Record<string, unknown> = {}): string {
  const principal = {
    auth_typ: 'aad',
    name_typ: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
    role_typ: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role',
    claims: [
      { typ: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name', val: 'ada@contoso.com' },
      ...roles.map((val) => ({ typ: 'roles', val })),
    ],
    ...extra,
  };
  return Buffer.from(JSON.stringify(principal)).toString('base64');
}

const request = (headers: Record<string, string> = {}, method = 'GET') =>
  new HttpRequest({ method, url: 'http://127.0.0.1/api/signed-in/requests', headers });

const context = () => new InvocationContext({ logHandler: () => undefined });

const reached: HttpRequest[] = [];
const handler = async (req: HttpRequest) => {
  reached.push(req);
  return { status: 200, jsonBody: callerOf(req) };
};

describe('parseClientPrincipal', () => {
  it('reads the name and the app roles, under either role claim type', () => {
    const headers = new Headers({
      'x-ms-client-principal': principalHeader(['Provisioning.Reader'], {
        claims: [
          { typ: 'name', val: 'Ada' },
          { typ: 'roles', val: 'Provisioning.Reader' },
          {
            typ: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role',
            val: 'Provisioning.Operator',
          },
          { typ: 'groups', val: 'not-a-role' },
        ],
      }),
    });
    expect(parseClientPrincipal(headers)).toEqual({
      kind: 'principal',
      name: 'Ada',
      identityProvider: 'aad',
      roles: ['Provisioning.Reader', 'Provisioning.Operator'],
    });
  });

  it.each([
    ['not base64 json'],
    [Buffer.from('[1]').toString('base64')],
    [Buffer.from('{"claims":"x"}').toString('base64')],
  ])('takes a header of another shape for no principal: %s', (value) => {
    expect(parseClientPrincipal(new Headers({ 'x-ms-client-principal': value }))).toBeUndefined();
  });
});

describe('the signed-in entrance', () => {
  const trusted = { appServiceAuthentication: true };

  it('lets nobody in where App Service Authentication is off, whatever header is sent', async () => {
    reached.length = 0;
    const guarded = signedInEntrance('read', handler, { appServiceAuthentication: false });
    const answer = await guarded(
      request({ 'x-ms-client-principal': principalHeader(['Provisioning.Operator']) }),
      context(),
    );
    expect(answer.status).toBe(401);
    expect(answer.jsonBody).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect((answer.jsonBody as { error: { signIn?: string } }).error.signIn).toBeUndefined();
    expect(reached).toEqual([]);
  });

  it('sends a caller who is not signed in to the sign-in page', async () => {
    const answer = await signedInEntrance('read', handler, trusted)(request(), context());
    expect(answer.status).toBe(401);
    expect(answer.jsonBody).toMatchObject({
      error: { code: 'UNAUTHORIZED', signIn: '/.auth/login/aad' },
    });
  });

  it('refuses a Reader what needs an Operator, naming the role, and lets the Reader read', async () => {
    reached.length = 0;
    const reader = { 'x-ms-client-principal': principalHeader(['Provisioning.Reader']) };
    const refused = await signedInEntrance(
      'operate',
      handler,
      trusted,
    )(request(reader, 'POST'), context());
    expect(refused.status).toBe(403);
    expect(refused.jsonBody).toMatchObject({
      error: {
        code: 'FORBIDDEN',
        object: 'Provisioning.Operator',
        message: expect.stringContaining('ada@contoso.com has Provisioning.Reader'),
      },
    });
    expect(reached).toEqual([]);
    const read = await signedInEntrance('read', handler, trusted)(request(reader), context());
    expect(read.status).toBe(200);
    expect(read.jsonBody).toMatchObject({
      kind: 'principal',
      name: 'ada@contoso.com',
      roles: ['Provisioning.Reader'],
    });
  });

  it('lets an Operator act, and refuses a principal with no role of this service', async () => {
    const operator = {
      'x-ms-client-principal': principalHeader(['Provisioning.Operator']),
      'content-type': 'application/json',
    };
    expect(
      (await signedInEntrance('operate', handler, trusted)(request(operator, 'POST'), context()))
        .status,
    ).toBe(200);
    const none = { 'x-ms-client-principal': principalHeader([]) };
    const answer = await signedInEntrance('read', handler, trusted)(request(none), context());
    expect(answer.status).toBe(403);
    expect(answer.jsonBody).toMatchObject({
      error: { message: expect.stringContaining('no app role') },
    });
  });
});

describe('changes from another site', () => {
  it('refuses a change a signed-in browser was made to send from another site', async () => {
    reached.length = 0;
    const operator = principalHeader(['Provisioning.Operator']);
    const guarded = signedInEntrance('operate', handler, { appServiceAuthentication: true });
    for (const site of ['cross-site', 'same-site']) {
      const answer = await guarded(
        request({ 'x-ms-client-principal': operator, 'sec-fetch-site': site }, 'POST'),
        context(),
      );
      expect(answer.status).toBe(403);
      expect(answer.jsonBody).toMatchObject({ error: { code: 'FORBIDDEN' } });
    }
    expect(reached).toEqual([]);
    const json = { 'content-type': 'application/json' };
    const own = request(
      { 'x-ms-client-principal': operator, 'sec-fetch-site': 'same-origin', ...json },
      'POST',
    );
    expect((await guarded(own, context())).status).toBe(200);
    const program = request({ 'x-ms-client-principal': operator, ...json }, 'POST');
    expect((await guarded(program, context())).status).toBe(200);
  });

  it('refuses a change not sent as JSON: a form or a body-less POST from a browser that says nothing of the site', async () => {
    reached.length = 0;
    const operator = principalHeader(['Provisioning.Operator']);
    const guarded = signedInEntrance('operate', handler, { appServiceAuthentication: true });
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      undefined,
    ]) {
      const headers: Record<string, string> = { 'x-ms-client-principal': operator };
      if (type !== undefined) headers['content-type'] = type;
      const answer = await guarded(request(headers, 'POST'), context());
      expect(answer.status, String(type)).toBe(403);
      expect(answer.jsonBody).toMatchObject({
        error: { code: 'FORBIDDEN', message: expect.stringContaining('must be sent as JSON') },
      });
    }
    expect(reached).toEqual([]);
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'application/merge-patch+json',
    ]) {
      const headers = { 'x-ms-client-principal': operator, 'content-type': type };
      expect((await guarded(request(headers, 'POST'), context())).status, type).toBe(200);
    }
    // Reads need no body.
    expect((await guarded(request({ 'x-ms-client-principal': operator }), context())).status).toBe(
      200,
    );
  });
});

describe('the key entrance', () => {
  it('takes the caller for a key holder with every role (the key was checked before)', async () => {
    const answer = await keyEntrance(handler)(request(), context());
    expect(answer.jsonBody).toEqual({
      kind: 'function key',
      roles: ['Provisioning.Reader', 'Provisioning.Operator'],
    });
  });
});
