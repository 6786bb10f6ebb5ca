import { request as httpsRequest } from 'node:https';
import { ConfidentialClientApplication } from '@azure/msal-node';
import type { INetworkModule, NetworkRequestOptions, NetworkResponse } from '@azure/msal-node';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_CLIENT, startGraphSandbox } from '../../../src/sandbox/graph/index.js';
import type { GraphSandbox } from '../../../src/sandbox/graph/index.js';
import { expectNoSecrets } from '../../support/no-secrets';

type Client = { clientId: string; secret: string };
type GraphObject = { id: string; '@odata.type'?: string } & Record<string, unknown>;
/** The Graph JSON shapes these tests read (one reply holds only some of them). */
interface GraphBody extends GraphObject {
  value: GraphObject[];
  '@odata.nextLink'?: string;
  error: { code: string; message: string; details?: { code: string }[]; innerError: object };
  responses: { id: string; status: number; headers: Record<string, string> }[];
}

const ADMIN = DEFAULT_SANDBOX_CLIENT;
const LIMITED = {
  clientId: 'limited-app',
  secret: 'limited-secret-1',
  roles: ['User.Read.All', 'GroupMember.Read.All'],
};
const NO_ROLES = { clientId: 'no-roles-app', secret: 'no-roles-secret-1', roles: [] };

let clock = 1_700_000_000_000;
let sandbox: GraphSandbox;
let agent: Agent;
const tokens = new Map<string, string>();

/** MSAL's only networking hook (platform-notes.md): node:https trusting the sandbox CA. */
function networkClient(ca: string): INetworkModule {
  const send = <T>(method: string, url: string, options?: NetworkRequestOptions) =>
    new Promise<NetworkResponse<T>>((resolve, reject) => {
      const req = httpsRequest(url, { method, headers: options?.headers, ca }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) headers[name] = String(value);
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
          resolve({ status: res.statusCode ?? 0, headers, body });
        });
      });
      req.on('error', reject);
      req.end(options?.body);
    });
  return {
    sendGetRequestAsync: (url, options) => send('GET', url, options),
    sendPostRequestAsync: (url, options) => send('POST', url, options),
  };
}

function msalApp(client: Client, target = sandbox): ConfidentialClientApplication {
  return new ConfidentialClientApplication({
    auth: {
      clientId: client.clientId,
      clientSecret: client.secret,
      authority: `${target.authority}/${target.tenantId}`,
      knownAuthorities: [target.knownAuthority],
      authorityMetadata: target.authorityMetadata(),
    },
    system: { networkClient: networkClient(target.ca) },
  });
}

async function tokenFor(client: Client, target = sandbox): Promise<string> {
  const scopes = [`${target.graphEndpoint}/.default`];
  const result = await msalApp(client, target).acquireTokenByClientCredential({ scopes });
  return result!.accessToken;
}

async function graph(
  method: string,
  pathOrUrl: string,
  options: { body?: unknown; client?: Client } = {},
) {
  const client = options.client ?? ADMIN;
  const token = tokens.get(client.clientId) ?? (await tokenFor(client));
  tokens.set(client.clientId, token);
  const url = pathOrUrl.startsWith('https://')
    ? pathOrUrl
    : `${sandbox.graphEndpoint}/v1.0${pathOrUrl}`;
  const response = await fetch(url, {
    method,
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const body = (text === '' ? {} : JSON.parse(text)) as GraphBody;
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

const ref = (id: string) => ({
  '@odata.id': `${sandbox.graphEndpoint}/v1.0/directoryObjects/${id}`,
});
const ids = (objects: GraphObject[]) => objects.map((o) => o.id);

beforeAll(async () => {
  sandbox = await startGraphSandbox({
    now: () => clock,
    clients: [{ ...ADMIN }, LIMITED, NO_ROLES],
  });
  agent = new Agent({ connect: { ca: sandbox.ca } });
});

afterAll(async () => {
  await agent.close();
  await sandbox.close();
});

beforeEach(() => {
  sandbox.setReplicationDelay(0);
  sandbox.setThrottle(undefined);
  sandbox.setLicensed(true);
});

describe('token authority', () => {
  it('serves real MSAL: a token with the client roles, then the same token from the cache', async () => {
    const app = msalApp(ADMIN);
    const scopes = [`${sandbox.graphEndpoint}/.default`];
    const first = await app.acquireTokenByClientCredential({ scopes });
    expect((await app.acquireTokenByClientCredential({ scopes }))?.fromCache).toBe(true);
    const payload = first!.accessToken.split('.')[1]!;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({
      aud: sandbox.graphEndpoint,
      tid: sandbox.tenantId,
      appid: ADMIN.clientId,
    });
    expect(claims['roles']).toEqual(DEFAULT_SANDBOX_CLIENT.roles);
    expect((await graph('GET', '/users?$top=1')).status).toBe(200);
  });

  it('refuses a wrong secret with invalid_client, never echoing the secret', async () => {
    const wrong = { clientId: LIMITED.clientId, secret: 'Wr0ng-Secret-Value' };
    const error = (await tokenFor(wrong).catch((e: unknown) => e)) as {
      errorCode: string;
      message: string;
    };
    expect(error.errorCode).toBe('invalid_client');
    expect(error.message).toContain('AADSTS7000215');
    expectNoSecrets(error.message, { 'wrong client secret': wrong.secret }, 'the MSAL error');
  });

  it('refuses a revoked secret while a token issued before still works, until it is restored', async () => {
    const before = await tokenFor(LIMITED);
    sandbox.setClientSecret(LIMITED.clientId, 'Rotated-Secret-2f7a');
    try {
      const error = (await tokenFor(LIMITED).catch((e: unknown) => e)) as { errorCode: string };
      expect(error.errorCode).toBe('invalid_client');
      const response = await fetch(`${sandbox.graphEndpoint}/v1.0/users?$top=1`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${before}` },
      });
      expect(response.status).toBe(200);
    } finally {
      sandbox.setClientSecret(LIMITED.clientId, LIMITED.secret);
    }
    expect(await tokenFor(LIMITED)).toEqual(expect.any(String));
  });

  it('issues tokens as short-lived as asked: MSAL then asks again on every call', async () => {
    sandbox.setTokenLifetime(60);
    try {
      const app = msalApp(LIMITED);
      const scopes = [`${sandbox.graphEndpoint}/.default`];
      const first = await app.acquireTokenByClientCredential({ scopes });
      const claims = JSON.parse(
        Buffer.from(first!.accessToken.split('.')[1]!, 'base64url').toString(),
      ) as { iat: number; exp: number };
      expect(claims.exp - claims.iat).toBe(60);
      expect((await app.acquireTokenByClientCredential({ scopes }))?.fromCache).toBe(false);
    } finally {
      sandbox.setTokenLifetime(3599);
    }
  });

  it('refuses an unknown tenant, a scope without /.default, and a forged token', async () => {
    const post = async (tenant: string, scope: string) => {
      const form = { grant_type: 'client_credentials', client_id: LIMITED.clientId, scope };
      const body = new URLSearchParams({ ...form, client_secret: LIMITED.secret });
      const url = `${sandbox.authority}/${tenant}/oauth2/v2.0/token`;
      const response = await fetch(url, { method: 'POST', dispatcher: agent, body });
      return [response.status, ((await response.json()) as { error: string }).error];
    };
    const unknownTenant = await post(
      '00000000-0000-0000-0000-000000000000',
      `${sandbox.graphEndpoint}/.default`,
    );
    expect(unknownTenant).toEqual([400, 'invalid_request']);
    expect(await post(sandbox.tenantId, 'User.Read.All')).toEqual([400, 'invalid_scope']);
    tokens.set('forged', 'eyJhbGciOiJub25lIn0.eyJyb2xlcyI6W119.');
    const forged = await graph('GET', '/users', { client: { clientId: 'forged', secret: '' } });
    expect([forged.status, forged.body.error.code]).toEqual([401, 'InvalidAuthenticationToken']);
  });
});

describe('reads', () => {
  it('pages with absolute nextLinks and enforces $top limits', async () => {
    for (let i = 0; i < 25; i += 1)
      sandbox.addGroup({ displayName: `Paging ${String(i).padStart(2, '0')}` });
    const seen: string[] = [];
    let url: string | undefined =
      `/groups?$filter=startswith(displayName,'paging')&$top=10&$select=id`;
    let pages = 0;
    for (; url !== undefined; pages += 1) {
      const page = await graph('GET', url);
      seen.push(...ids(page.body.value));
      url = page.body['@odata.nextLink'];
      if (url !== undefined)
        expect(url.startsWith(`${sandbox.graphEndpoint}/v1.0/groups?`)).toBe(true);
    }
    expect([pages, new Set(seen).size]).toEqual([3, 25]);
    expect(
      (await graph('GET', `/groups?$filter=displayName eq 'paging 07'`)).body.value,
    ).toHaveLength(1);
    const refused = [
      '/groups?$top=1000',
      '/groups?$skip=10',
      '/users?$top=600&$select=id,signInActivity',
    ];
    for (const path of refused) expect((await graph('GET', path)).status).toBe(400);
  });

  it('returns groups, directory roles and administrative units from memberOf, typed', async () => {
    const user = sandbox.addUser({ userPrincipalName: 'mo@contoso.example' });
    const role = sandbox.addDirectoryRole({ displayName: 'Helpdesk Administrator' });
    const containers = [sandbox.addGroup({ displayName: 'MO group' }), role];
    containers.push(sandbox.addAdministrativeUnit({ displayName: 'Region North' }));
    for (const container of containers) sandbox.addMember(container.id, user.id);
    const full = await graph('GET', `/users/${user.id}/memberOf`);
    expect(full.body.value.map((o) => o['@odata.type']).sort()).toEqual([
      '#microsoft.graph.administrativeUnit',
      '#microsoft.graph.directoryRole',
      '#microsoft.graph.group',
    ]);
    const limited = await graph('GET', `/users/${user.id}/memberOf`, { client: LIMITED });
    const roleSeen = limited.body.value.find((o) => o.id === role.id);
    expect(roleSeen).toEqual({ '@odata.type': '#microsoft.graph.directoryRole', id: role.id });
  });

  it('answers 403 per route from the token roles', async () => {
    const denied = await graph('POST', '/users', { client: LIMITED, body: {} });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'Authorization_RequestDenied',
      message: 'Insufficient privileges to complete the operation.',
      innerError: { 'request-id': expect.any(String) as unknown },
    });
    const noRoles = await graph('GET', '/groups', { client: NO_ROLES });
    expect(noRoles.status).toBe(403);
    expect(noRoles.body.error.message).toContain('Required roles claim values are not provided');
  });

  it('returns signInActivity only when selected, and 403 without the licence', async () => {
    const lastSignInDateTime = '2024-05-01T10:00:00Z';
    sandbox.addUser({
      userPrincipalName: 'signin@contoso.example',
      signInActivity: { lastSignInDateTime },
    });
    const path = `/users?$filter=userPrincipalName eq 'signin@contoso.example'`;
    expect((await graph('GET', path)).body.value[0]).not.toHaveProperty('signInActivity');
    const selected = await graph('GET', `${path}&$select=id,signInActivity`);
    expect(selected.body.value[0]?.['signInActivity']).toMatchObject({ lastSignInDateTime });
    sandbox.setLicensed(false);
    const unlicensed = await graph('GET', `${path}&$select=id,signInActivity`);
    expect(unlicensed.status).toBe(403);
    expect(unlicensed.body.error.code).toBe(
      'Authentication_RequestFromNonPremiumTenantOrB2CTenant',
    );
  });
});

describe('writes', () => {
  it('creates users with Graph validation, PATCHes, and reports a stale lock read-back once', async () => {
    const passwordProfile = { password: 'Str0ng-Passw0rd!' };
    const user = { accountEnabled: true, displayName: 'New', mailNickname: 'new', passwordProfile };
    const create = (changes: object) => graph('POST', '/users', { body: { ...user, ...changes } });
    const created = await create({ userPrincipalName: 'new@contoso.example' });
    expect(created.status).toBe(201);
    const duplicate = await create({ userPrincipalName: 'NEW@contoso.example' });
    expect(duplicate.body.error.details?.[0]?.code).toBe('ObjectConflict');
    const refused = await Promise.all([
      create({ userPrincipalName: 'x@fabrikam.example' }),
      create({ userPrincipalName: 'np@contoso.example', passwordProfile: undefined }),
      create({ userPrincipalName: 'weak@contoso.example', passwordProfile: { password: 'abc1' } }),
    ]);
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400]);
    const path = `/users/${created.body.id}`;
    expect((await graph('PATCH', path, { body: { accountEnabled: false } })).status).toBe(204);
    sandbox.failNextLockReadBack(created.body.id);
    const stale = await graph('GET', `${path}?$select=id,accountEnabled`);
    const fresh = await graph('GET', `${path}?$select=id,accountEnabled`);
    expect([stale.body['accountEnabled'], fresh.body['accountEnabled']]).toEqual([true, false]);
  });

  it("keeps Entra ID's user name policy: ASCII letters, digits and ' . - _ ! # ^ ~ before the @", async () => {
    const passwordProfile = { password: 'Str0ng-Passw0rd!' };
    const create = (local: string) =>
      graph('POST', '/users', {
        body: {
          accountEnabled: true,
          displayName: local,
          mailNickname: 'policy',
          passwordProfile,
          userPrincipalName: `${local}@contoso.example`,
        },
      });
    expect((await create("o'brien#1^~!_x.y-z")).status).toBe(201);
    for (const local of [
      'jane"doe',
      'a&b',
      'a b',
      'a\\b',
      'a%b',
      'a+b',
      '山田',
      'x🎉',
      'dot.',
      '.dot',
      'x'.repeat(65),
    ]) {
      const refused = await create(local);
      expect(refused.status, local).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'Request_BadRequest',
        message: 'Property userPrincipalName is invalid.',
      });
    }
  });

  it('adds and removes members by $ref with Graph semantics, and refuses unwritable groups', async () => {
    const user = sandbox.addUser({ userPrincipalName: 'ref@contoso.example' });
    const path = `/groups/${sandbox.addGroup({ displayName: 'Ref group' }).id}/members`;
    expect((await graph('POST', `${path}/$ref`, { body: ref(user.id) })).status).toBe(204);
    const again = await graph('POST', `${path}/$ref`, { body: ref(user.id) });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toContain('One or more added object references already exist');
    const otherRoot = {
      '@odata.id': `https://graph.microsoft.com/v1.0/directoryObjects/${user.id}`,
    };
    expect((await graph('POST', `${path}/$ref`, { body: otherRoot })).status).toBe(400);
    const unknown = ref('11111111-2222-3333-4444-555555555555');
    expect((await graph('POST', `${path}/$ref`, { body: unknown })).status).toBe(404);
    expect((await graph('DELETE', `${path}/${user.id}/$ref`)).status).toBe(204);
    const notMember = await graph('DELETE', `${path}/${user.id}/$ref`);
    expect([notMember.status, notMember.body.error.code]).toEqual([
      404,
      'Request_ResourceNotFound',
    ]);
    const unwritable = [
      sandbox.addGroup({
        displayName: 'Dyn',
        groupTypes: ['DynamicMembership'],
        membershipRule: 'x',
      }),
      sandbox.addGroup({ displayName: 'DL', mailEnabled: true, securityEnabled: false }),
      sandbox.addGroup({ displayName: 'Synced', onPremisesSyncEnabled: true }),
    ];
    const answers = await Promise.all(
      unwritable.map((g) => graph('POST', `/groups/${g.id}/members/$ref`, { body: ref(user.id) })),
    );
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400]);
    expect(answers[2]!.body.error.message).toContain('on-premises mastered Directory Sync objects');
    expect(sandbox.directMemberIds(unwritable[0]!.id)).toEqual([]);
    const m365 = sandbox.addGroup({
      displayName: 'M365',
      groupTypes: ['Unified'],
      mailEnabled: true,
    });
    expect(
      (await graph('POST', `/groups/${m365.id}/members/$ref`, { body: ref(user.id) })).status,
    ).toBe(204);
  });

  it('deletes the USER on DELETE /groups/{id}/members/{id} without $ref', async () => {
    const user = sandbox.addUser({ userPrincipalName: 'victim@contoso.example' });
    const group = sandbox.addGroup({ displayName: 'Danger group' });
    sandbox.addMember(group.id, user.id);
    expect((await graph('DELETE', `/groups/${group.id}/members/${user.id}`)).status).toBe(204);
    expect(sandbox.getUser(user.id)).toBeUndefined();
    expect(sandbox.directMemberIds(group.id)).toEqual([]);
    expect((await graph('GET', `/users/${user.id}`)).status).toBe(404);
  });

  it('shows writes to readers only after the replication delay, on the shared clock', async () => {
    const user = sandbox.addUser({ userPrincipalName: 'late@contoso.example' });
    const group = sandbox.addGroup({ displayName: 'Late group' });
    sandbox.setReplicationDelay(5_000);
    const add = () => graph('POST', `/groups/${group.id}/members/$ref`, { body: ref(user.id) });
    expect([(await add()).status, (await add()).status]).toEqual([204, 400]);
    const groupIds = async () => ids((await graph('GET', `/users/${user.id}/memberOf`)).body.value);
    expect(await groupIds()).toEqual([]);
    expect(sandbox.directMemberIds(group.id)).toEqual([user.id]);
    clock += 4_999;
    expect(await groupIds()).toEqual([]);
    clock += 1;
    expect(await groupIds()).toEqual([group.id]);
  });

  it('throttles beyond the budget with Retry-After, counting throttled requests', async () => {
    sandbox.setThrottle({ limit: 1, windowMs: 1_000, retryAfterSeconds: 2 });
    const read = () => graph('GET', '/groups?$top=1');
    expect((await read()).status).toBe(200);
    clock += 500;
    const throttled = await read();
    expect([throttled.status, throttled.retryAfter, throttled.body.error.code]).toEqual([
      429,
      '2',
      'TooManyRequests',
    ]);
    clock += 500;
    expect((await read()).status).toBe(429);
    clock += 2_000;
    expect((await read()).status).toBe(200);
  });
});

describe('$batch', () => {
  it('runs sub-requests with their own statuses, dependsOn, 424 and per-request 429', async () => {
    const user = sandbox.addUser({ userPrincipalName: 'batch@contoso.example' });
    const group = sandbox.addGroup({ displayName: 'Batch group' });
    sandbox.addMember(group.id, user.id);
    const headers = { 'Content-Type': 'application/json' };
    const requests = [
      {
        id: '1',
        method: 'POST',
        url: `/groups/${group.id}/members/$ref`,
        headers,
        body: ref(user.id),
      },
      { id: '2', method: 'GET', url: `/groups/${group.id}?$select=id`, dependsOn: ['1'] },
      { id: '3', method: 'DELETE', url: `/groups/${group.id}/members/${user.id}/$ref` },
    ];
    const reply = await graph('POST', '/$batch', { body: { requests } });
    const statuses = Object.fromEntries(reply.body.responses.map((r) => [r.id, r.status]));
    expect(statuses).toEqual({ '1': 400, '2': 424, '3': 204 });
    expect(sandbox.requests.filter((r) => r.viaBatch === true)).toHaveLength(2);
    const many = Array.from({ length: 21 }, (_, i) => ({
      id: String(i),
      method: 'GET',
      url: '/groups',
    }));
    expect((await graph('POST', '/$batch', { body: { requests: many } })).status).toBe(400);
    sandbox.setThrottle({ limit: 1, windowMs: 60_000, retryAfterSeconds: 7 });
    const reads = ['a', 'b'].map((id) => ({ id, method: 'GET', url: '/groups?$top=1' }));
    const throttled = await graph('POST', '/$batch', { body: { requests: reads } });
    const second = throttled.body.responses[1]!;
    expect([second.status, second.headers['Retry-After']]).toEqual([429, '7']);
  });
});

describe('seeding at scale', () => {
  it('seeds 20,000 groups fast and serves them in pages of 999', async () => {
    const big = await startGraphSandbox();
    const bigAgent = new Agent({ connect: { ca: big.ca } });
    try {
      const started = performance.now();
      for (let i = 0; i < 20_000; i += 1) big.addGroup({ displayName: `G${i}` });
      expect(performance.now() - started).toBeLessThan(2_000);
      const authorization = `Bearer ${await tokenFor(ADMIN, big)}`;
      const url = `${big.graphEndpoint}/v1.0/groups?$top=999&$select=id`;
      const page = await fetch(url, { dispatcher: bigAgent, headers: { authorization } });
      const json = (await page.json()) as GraphBody;
      expect(json.value).toHaveLength(999);
      expect(json['@odata.nextLink']).toContain('$skiptoken=');
    } finally {
      await bigAgent.close();
      await big.close();
    }
  });
});
