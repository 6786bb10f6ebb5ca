import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScimQuirks,
  type ScimSandbox,
  type ScimSandboxOptions,
  startScimSandbox,
} from '../../../src/sandbox/scim/index.js';
import { expectNoSecrets } from '../../support/no-secrets';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

type Body = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Headers;
  body: Body | undefined;
}

async function call(url: string, method = 'GET', body?: unknown, headers = {}): Promise<Answer> {
  const init: RequestInit = {
    method,
    headers: { 'content-type': 'application/scim+json', ...headers },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(url, init);
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as Body) : undefined;
  return { status: response.status, headers: response.headers, body: parsed };
}

const filter = (expression: string) => `filter=${encodeURIComponent(expression)}`;
// RFC 7644 §3.4.2.2: `\` and `"` inside a quoted filter value are escaped.
const quote = (value: string) => `"${value.replace(/[\\"]/g, '\\$&')}"`;
const resources = (answer: Answer) => (answer.body?.Resources ?? []) as Body[];
const ids = (answer: Answer) => resources(answer).map((r) => r.id);

describe('SCIM sandbox', () => {
  const started: ScimSandbox[] = [];
  let s: ScimSandbox;
  const start = async (options?: ScimSandboxOptions) => {
    const sandbox = await startScimSandbox(options);
    started.push(sandbox);
    return sandbox;
  };
  const get = (path: string, headers = {}) =>
    call(`${s.endpoint}${path}`, 'GET', undefined, headers);
  const send = (method: string, path: string, body?: unknown) =>
    call(`${s.endpoint}${path}`, method, body);
  const patch = (path: string, ...Operations: unknown[]) =>
    send('PATCH', path, { schemas: [PATCH_OP], Operations });
  const withQuirks = async (quirks: ScimQuirks, run: () => Promise<void>) => {
    s.setQuirks(quirks);
    await run().finally(() => s.setQuirks({}));
  };

  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => {
    await Promise.all(started.map((sandbox) => sandbox.close()));
  });

  it('bearer: right token passes; wrong or missing answers a SCIM 401; nothing recorded holds it', async () => {
    const b = await start({ auth: { type: 'bearer', token: 'tok-123' } });
    const url = `${b.endpoint}/Users`;
    expect((await call(url, 'GET', undefined, { authorization: 'Bearer tok-123' })).status).toBe(
      200,
    );
    for (const headers of [{ authorization: 'Bearer nope' }, {}]) {
      const denied = await call(url, 'GET', undefined, headers);
      expect(denied.body).toMatchObject({ schemas: [ERROR], status: '401' });
      expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect(b.requests.map((r) => [r.method, r.path, r.status, r.body])).toEqual([
      ['GET', '/scim/v2/Users', 200, undefined],
      ['GET', '/scim/v2/Users', 401, undefined],
      ['GET', '/scim/v2/Users', 401, undefined],
    ]);
    expectNoSecrets(b.requests, { 'bearer token': 'tok-123' }, 'the request log');
  });

  it('answers 401 from the next call on once its token is revoked, and 200 once restored', async () => {
    const b = await start({ auth: { type: 'bearer', token: 'tok-456' } });
    const url = `${b.endpoint}/Users`;
    const withToken = { authorization: 'Bearer tok-456' };
    b.setAuth({ type: 'bearer', token: 'tok-new' });
    const denied = await call(url, 'GET', undefined, withToken);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/);
    b.setAuth({ type: 'bearer', token: 'tok-456' });
    expect((await call(url, 'GET', undefined, withToken)).status).toBe(200);
  });

  it('basic: right credential passes, wrong password answers 401; auth none needs nothing', async () => {
    const b = await start({ auth: { type: 'basic', username: 'svc', password: 'pa:ss' } });
    const basic = (v: string) => ({ authorization: `Basic ${Buffer.from(v).toString('base64')}` });
    const config = await call(
      `${b.endpoint}/ServiceProviderConfig`,
      'GET',
      undefined,
      basic('svc:pa:ss'),
    );
    expect(config.body).toMatchObject({ authenticationSchemes: [{ type: 'httpbasic' }] });
    expect((await call(`${b.endpoint}/Groups`, 'GET', undefined, basic('svc:nope'))).status).toBe(
      401,
    );
    expect((await get('/ServiceProviderConfig')).body).toMatchObject({
      patch: { supported: true },
    });
  });

  it('users: create, 409 uniqueness in any case, PATCH password and active, DELETE', async () => {
    const created = await send('POST', '/Users', {
      userName: 'Ann',
      password: 'S3cret!',
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('password');
    const id = created.body?.id as string;
    expect(created.body?.meta).toMatchObject({ location: `${s.endpoint}/Users/${id}` });
    expect(await send('POST', '/Users', { userName: 'ann' })).toMatchObject({
      status: 409,
      body: { schemas: [ERROR], status: '409', scimType: 'uniqueness' },
    });
    const pw = await patch(`/Users/${id}`, { op: 'replace', path: 'password', value: 'N3w!' });
    expect(pw.status).toBe(204);
    const locked = await patch(`/Users/${id}`, { op: 'Replace', path: 'active', value: false });
    expect(locked).toMatchObject({ status: 200, body: { active: false } });
    expect(s.getUser('ANN')).toMatchObject({ id, active: false });
    expect(JSON.stringify(s.requests)).not.toMatch(/S3cret|N3w!/);
    expect((await send('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await send('DELETE', `/Users/${id}`)).status).toBe(404);
    expect((await get(`/Users/${id}`)).body).toMatchObject({ schemas: [ERROR], status: '404' });
  });

  it('filters userName case-insensitively; exactly with caseSensitiveFilters', async () => {
    s.seedUsers([{ userName: 'Case.Person' }]);
    const path = `/Users?${filter('userName eq "case.person"')}`;
    expect((await get(path)).body?.totalResults).toBe(1);
    await withQuirks({ caseSensitiveFilters: true }, async () => {
      expect((await get(path)).body?.totalResults).toBe(0);
    });
  });

  it('reports the last logon under the configured name or path only', async () => {
    const [user] = s.seedUsers([{ userName: 'logon.user', lastLogon: '2024-05-01T10:00:00Z' }]);
    expect((await get(`/Users/${user?.id}`)).body).not.toHaveProperty('lastLogin');
    const cases: Array<[string, (b: Body) => unknown]> = [
      ['lastLogin', (b) => b.lastLogin],
      ['loginTime', (b) => b.loginTime],
      [
        'urn:example:2.0:Activity.lastSeen',
        (b) => (b['urn:example:2.0:Activity'] as Body).lastSeen,
      ],
      ['activity.lastSignIn', (b) => (b.activity as Body).lastSignIn],
    ];
    for (const [attribute, read] of cases) {
      await withQuirks({ lastLogonAttribute: attribute }, async () => {
        const [found] = resources(await get(`/Users?${filter('userName eq "logon.user"')}`));
        expect(read(found ?? {})).toBe('2024-05-01T10:00:00Z');
      });
    }
    s.setLastLogon('logon.user', '2025-01-02T03:04:05Z');
    await withQuirks({ lastLogonAttribute: 'lastLogon' }, async () => {
      expect((await get(`/Users/${user?.id}`)).body?.lastLogon).toBe('2025-01-02T03:04:05Z');
    });
  });

  it('shows `active` left out or spelt `Active` as told (quirk activeAttribute), storing it as is', async () => {
    const [user] = s.seedUsers([{ userName: 'shown.state', active: false }]);
    await withQuirks({ activeAttribute: 'omitted' }, async () => {
      expect((await get(`/Users/${user?.id}`)).body).not.toHaveProperty('active');
      const listed = resources(await get(`/Users?${filter('userName eq "shown.state"')}`));
      expect(listed[0]).not.toHaveProperty('active');
      const unlocked = await patch(`/Users/${user?.id}`, {
        op: 'replace',
        path: 'active',
        value: true,
      });
      expect(unlocked.body ?? {}).not.toHaveProperty('active');
    });
    expect(s.getUser('shown.state')?.active).toBe(true);
    await withQuirks({ activeAttribute: 'capitalised' }, async () => {
      const body = (await get(`/Users/${user?.id}`)).body;
      expect(body).not.toHaveProperty('active');
      expect(body?.Active).toBe(true);
    });
  });

  it('groups: any member value, the Entra membership check with escapes, both remove forms', async () => {
    const created = await send('POST', '/Groups', {
      displayName: 'Sales',
      members: [{ value: 'keep' }],
    });
    const gid = created.body?.id as string;
    expect((await send('POST', '/Groups', { displayName: 'SALES' })).body).toMatchObject({
      status: '409',
      scimType: 'uniqueness',
    });
    const odd = 'we"ird\\id';
    const added = await patch(`/Groups/${gid}`, {
      op: 'Add',
      path: 'members',
      value: [{ value: 'alice' }, { value: odd }],
    });
    expect(added).toMatchObject({
      status: 200,
      body: { members: [{ value: 'keep' }, { value: 'alice' }, { value: odd }] },
    });
    const check = (v: string) =>
      get(`/Groups?${filter(`id eq "${gid}" and members eq ${quote(v)}`)}&attributes=id`);
    expect(resources(await check(odd))).toEqual([{ schemas: [GROUP], id: gid }]);
    expect((await check('we"ird')).body).toMatchObject({ totalResults: 0, Resources: [] });

    await patch(`/Groups/${gid}`, { op: 'remove', path: `members[value eq ${quote(odd)}]` });
    await patch(`/Groups/${gid}`, { op: 'remove', path: 'members', value: [{ value: 'alice' }] });
    expect(s.getGroup('sales')?.members).toEqual([{ value: 'keep' }]);
    expect((await check('alice')).body?.totalResults).toBe(0);
    const noop = await patch(`/Groups/${gid}`, {
      op: 'remove',
      path: 'members',
      value: [{ value: 'x' }],
    });
    expect(noop.status).toBe(204);
  });

  it('pages in creation order (RFC 7644 §3.4.2.4) and searches with co', async () => {
    const p = await start();
    const seeded = p.seedGroups(
      Array.from({ length: 250 }, (_, i) => ({ displayName: `Team ${i}` })),
    );
    const page = (query: string) => call(`${p.endpoint}/Groups?${query}`);
    const third = await page('startIndex=201&count=100');
    expect(third.body).toMatchObject({ totalResults: 250, itemsPerPage: 50, startIndex: 201 });
    expect(ids(third)).toEqual(seeded.slice(200).map((g) => g.id));
    expect((await page('startIndex=251&count=100')).body).toMatchObject({ itemsPerPage: 0 });
    expect((await page('count=0')).body).toMatchObject({ totalResults: 250, itemsPerPage: 0 });
    expect((await page(filter('displayName co "team 24"'))).body?.totalResults).toBe(11);
  });

  it('seeds 10,000 groups quickly and pages them cheaply', async () => {
    const big = await start();
    const t0 = performance.now();
    const all = big.seedGroups(
      Array.from({ length: 10_000 }, (_, i) => ({ displayName: `G${i}` })),
    );
    expect(performance.now() - t0).toBeLessThan(2_000);
    const t1 = performance.now();
    for (let i = 1; i <= 2_000; i += 100)
      await call(`${big.endpoint}/Groups?startIndex=${i}&count=100`);
    expect((performance.now() - t1) / 20).toBeLessThan(100);
    const last = await call(`${big.endpoint}/Groups?startIndex=9901&count=100`);
    expect(ids(last).at(-1)).toBe(all.at(-1)?.id);
  });

  describe('quirks', () => {
    let gid: string;
    let uid: string;
    beforeAll(() => {
      uid = s.seedUsers([{ userName: 'quirk.user' }])[0]?.id ?? '';
      gid = s.seedGroups([{ displayName: 'Quirky', members: ['m1', 'm2'] }])[0]?.id ?? '';
      s.seedGroups([{ displayName: 'Quirky 2' }, { displayName: 'Quirky 3' }]);
    });
    const quirky = (extra = '') => get(`/Groups?${filter('displayName sw "Quirky"')}${extra}`);

    it('maxCount, ignoreStartIndex, numbersAsStrings, omitTotalResults change the list', async () => {
      await withQuirks({ maxCount: 2 }, async () => {
        expect((await quirky('&count=50')).body?.itemsPerPage).toBe(2);
      });
      await withQuirks({ ignoreStartIndex: true }, async () => {
        const answer = await quirky('&startIndex=3&count=1');
        expect(answer.body).toMatchObject({ startIndex: 1, itemsPerPage: 3 });
      });
      await withQuirks({ ignoreStartIndex: true, maxCount: 1 }, async () => {
        expect(ids(await quirky('&startIndex=2'))).toEqual([gid]);
      });
      await withQuirks({ numbersAsStrings: true }, async () => {
        const answer = await quirky();
        expect(answer.body).toMatchObject({
          totalResults: '3',
          itemsPerPage: '3',
          startIndex: '1',
        });
      });
      await withQuirks({ omitTotalResults: true }, async () => {
        expect((await quirky()).body).not.toHaveProperty('totalResults');
      });
    });

    it('notFoundOnEmptyFilter answers 404 where the default answers an empty list', async () => {
      const path = `/Users?${filter('userName eq "nobody"')}`;
      expect((await get(path)).body).toMatchObject({ totalResults: 0, Resources: [] });
      await withQuirks({ notFoundOnEmptyFilter: true }, async () => {
        expect((await get(path)).status).toBe(404);
      });
    });

    it('ignorePatchOps answers 204 and changes nothing; patchNoContent answers 204 and changes', async () => {
      const deactivate = { op: 'replace', path: 'active', value: false };
      await withQuirks({ ignorePatchOps: true }, async () => {
        expect((await patch(`/Users/${uid}`, deactivate)).status).toBe(204);
        expect(s.getUser(uid)?.active).toBe(true);
      });
      await withQuirks({ patchNoContent: true }, async () => {
        expect(await patch(`/Users/${uid}`, deactivate)).toMatchObject({
          status: 204,
          body: undefined,
        });
        expect(s.getUser(uid)?.active).toBe(false);
      });
    });

    it('passwordPatchIgnored declares changePassword false and answers a password PATCH 204 doing nothing', async () => {
      await withQuirks({ passwordPatchIgnored: true }, async () => {
        expect((await get('/ServiceProviderConfig')).body).toMatchObject({
          changePassword: { supported: false },
        });
        const before = s.truthLog().length;
        const set = await patch(`/Users/${uid}`, {
          op: 'replace',
          path: 'password',
          value: 'Pw-1x',
        });
        expect(set.status).toBe(204);
        expect(s.truthLog().slice(before)).toEqual([]);
        await patch(`/Users/${uid}`, { op: 'replace', path: 'title', value: 'Lead' });
        expect(
          s
            .truthLog()
            .slice(before)
            .map((e) => e.change),
        ).toEqual(['account updated']);
      });
    });

    it('userPatchPathFiltersRefused refuses a value filter in a user PATCH path, and only that', async () => {
      await withQuirks({ userPatchPathFiltersRefused: true }, async () => {
        const byPath = {
          op: 'replace',
          path: 'emails[primary eq true].value',
          value: 'x@y.example',
        };
        expect(await patch(`/Users/${uid}`, byPath)).toMatchObject({
          status: 400,
          body: expect.objectContaining({ scimType: 'invalidPath' }) as unknown,
        });
        expect(
          (await patch(`/Users/${uid}`, { op: 'replace', path: 'title', value: 'T' })).status,
        ).toBe(200);
      });
    });

    it('ignoredPatchEchoesRequest answers 200 with the patch applied to the answer only', async () => {
      await withQuirks({ ignorePatchOps: true, ignoredPatchEchoesRequest: true }, async () => {
        const active = s.getUser(uid)?.active;
        const flip = await patch(`/Users/${uid}`, {
          op: 'replace',
          path: 'active',
          value: !active,
        });
        expect(flip).toMatchObject({ status: 200, body: { active: !active } });
        expect(s.getUser(uid)?.active).toBe(active);
        const add = await patch(`/Groups/${gid}`, {
          op: 'add',
          path: 'members',
          value: [{ value: 'm3' }],
        });
        expect(add.body?.members).toEqual([{ value: 'm1' }, { value: 'm2' }, { value: 'm3' }]);
        const remove = await patch(`/Groups/${gid}`, {
          op: 'remove',
          path: 'members[value eq "m1"]',
        });
        expect(remove.body?.members).toEqual([{ value: 'm2' }]);
        expect(s.getGroup(gid)?.members).toEqual([{ value: 'm1' }, { value: 'm2' }]);
      });
    });

    it('ignoreDeletes answers 204 and keeps the user; ignoreFilters answers every user', async () => {
      const doomed = s.seedUsers([{ userName: 'kept.user' }])[0]!.id;
      await withQuirks({ ignoreDeletes: true }, async () => {
        expect((await call(`${s.endpoint}/Users/${doomed}`, 'DELETE')).status).toBe(204);
        expect(s.getUser(doomed)).toBeDefined();
      });
      await withQuirks({ ignoreFilters: true, maxCount: 1 }, async () => {
        const answer = await get(`/Users?${filter('userName eq "kept.user"')}`);
        expect(answer.body).toMatchObject({ totalResults: s.listUsers().length, itemsPerPage: 1 });
        expect(resources(answer)[0]?.userName).not.toBe('kept.user');
      });
    });

    it('omitMembers hides members while the members eq filter still answers', async () => {
      await withQuirks({ omitMembers: true }, async () => {
        expect((await get(`/Groups/${gid}`)).body).not.toHaveProperty('members');
        expect(resources(await quirky()).some((g) => 'members' in g)).toBe(false);
        const check = await get(`/Groups?${filter(`id eq "${gid}" and members eq "m1"`)}`);
        expect(ids(check)).toEqual([gid]);
      });
    });

    it('memberValuesMustBeInternalIds refuses account IDs and takes user ids', async () => {
      await withQuirks({ memberValuesMustBeInternalIds: true }, async () => {
        const add = (value: string) =>
          patch(`/Groups/${gid}`, { op: 'add', path: 'members', value: [{ value }] });
        expect(await add('quirk.user')).toMatchObject({
          status: 400,
          body: { scimType: 'invalidValue' },
        });
        expect((await add(uid)).status).toBe(200);
      });
    });

    it('memberRemoveStyle accepts only the configured remove form', async () => {
      const byFilter = { op: 'remove', path: 'members[value eq "m1"]' };
      const byValue = { op: 'remove', path: 'members', value: [{ value: 'm2' }] };
      await withQuirks({ memberRemoveStyle: 'valueArray' }, async () => {
        const refused = await patch(`/Groups/${gid}`, byFilter);
        expect(refused.body).toMatchObject({ status: '400', scimType: 'invalidPath' });
      });
      await withQuirks({ memberRemoveStyle: 'pathFilter' }, async () => {
        const refused = await patch(`/Groups/${gid}`, byValue);
        expect(refused.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
        expect((await patch(`/Groups/${gid}`, byFilter)).status).toBe(200);
      });
      expect(s.getGroup(gid)?.members).toEqual([{ value: 'm2' }, { value: uid }]);
    });

    it('noServiceProviderConfig answers 404 while the base URL still answers', async () => {
      await withQuirks({ noServiceProviderConfig: true }, async () => {
        expect((await get('/ServiceProviderConfig')).status).toBe(404);
        expect((await call(s.baseUrl)).status).toBe(200);
      });
    });

    it('adds latency, bursts of 429 with Retry-After, then bursts of 5xx', async () => {
      await withQuirks({ latencyMs: 60 }, async () => {
        const t0 = performance.now();
        await get('/ServiceProviderConfig');
        expect(performance.now() - t0).toBeGreaterThanOrEqual(55);
      });
      s.injectThrottle(2, '1');
      s.injectServerErrors(1, 503);
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i += 1) answers.push(await get(`/Groups/${gid}`));
      expect(answers.map((a) => a.status)).toEqual([429, 429, 503, 200]);
      expect(answers[0]?.body).toMatchObject({ schemas: [ERROR], status: '429' });
      expect(answers[0]?.headers.get('retry-after')).toBe('1');
    });
  });

  it('keeps sandboxes apart and derives baseUrl from the prefix', async () => {
    const [a, b, c] = await Promise.all([
      start({ prefix: '/tenant1/scim/v2' }),
      start({ prefix: '/api/scim' }),
      start({ prefix: '' }),
    ]);
    a.seedUsers([{ userName: 'only.in.a' }]);
    expect(a.baseUrl).toBe(a.endpoint.replace('/scim/v2', ''));
    expect(b.baseUrl).toBe(b.endpoint);
    expect(c.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const [inA, inB] = await Promise.all([
      call(`${a.endpoint}/Users`),
      call(`${b.endpoint}/Users`),
    ]);
    expect(inA.body?.totalResults).toBe(1);
    expect(inB.body?.totalResults).toBe(0);
    expect((await call(`${c.endpoint}/Users`)).status).toBe(200);
    expect(b.getUser('only.in.a')).toBeUndefined();
  });
});
