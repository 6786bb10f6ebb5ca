import { afterEach, describe, expect, it } from 'vitest';
import {
  BUILT_IN_APP_PREFIX,
  BUILT_IN_APP_QUIRKS,
  startScimSandbox,
  type ScimSandbox,
  type ScimSandboxOptions,
} from '../../../src/sandbox/scim/index.js';
import { patchOp, scimCall, type ScimAnswer } from './scim-test-client';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

let sandbox: ScimSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(options: ScimSandboxOptions): Promise<ScimSandbox> {
  sandbox = await startScimSandbox(options);
  return sandbox;
}

const filtered = (s: ScimSandbox, resource: string, filter: string) =>
  scimCall(`${s.endpoint}/${resource}?filter=${encodeURIComponent(filter)}`);

function answer(a: ScimAnswer) {
  if (a.reset) throw new Error('connection reset');
  return { status: a.status, scimType: a.body?.scimType, body: a.body };
}

describe("SCIM sandbox: applications' built-in SCIM services (scim-interop.md)", () => {
  it('without co: any co answers 400 invalidFilter on Users and Groups; eq still works', async () => {
    const s = await start({ quirks: { filterOperators: ['eq'] } });
    s.seedUsers([{ userName: 'ada' }]);
    s.seedGroups([{ displayName: 'Sales' }]);

    expect(answer(await filtered(s, 'Groups', 'displayName co "ale"'))).toMatchObject({
      status: 400,
      scimType: 'invalidFilter',
    });
    expect(answer(await filtered(s, 'Users', 'userName co "d"'))).toMatchObject({
      status: 400,
      scimType: 'invalidFilter',
    });
    expect(answer(await filtered(s, 'Users', 'userName eq "ada"')).body?.totalResults).toBe(1);
    expect(answer(await filtered(s, 'Groups', 'displayName eq "Sales"')).body?.totalResults).toBe(
      1,
    );
  });

  it('with only displayName eq on Groups: every other Groups filter is refused, Users filters are not', async () => {
    const s = await start({ quirks: { groupFilterDisplayNameEqOnly: true } });
    const [group] = s.seedGroups([{ displayName: 'Sales' }]);

    expect(answer(await filtered(s, 'Groups', 'displayName eq "Sales"')).body?.totalResults).toBe(
      1,
    );
    for (const filter of [
      `id eq "${group!.id}"`,
      'displayName co "al"',
      `id eq "${group!.id}" and members eq "x"`,
    ]) {
      expect(answer(await filtered(s, 'Groups', filter))).toMatchObject({
        status: 400,
        scimType: 'invalidFilter',
      });
    }
    expect(answer(await filtered(s, 'Users', 'userName co "a"')).status).toBe(200);
  });

  it('without password by PATCH: 400 invalidPath and nothing written; a password on create is ignored; the config says so', async () => {
    const s = await start({ quirks: { passwordNotPatchable: true } });
    const created = answer(
      await scimCall(`${s.endpoint}/Users`, 'POST', {
        schemas: [USER],
        userName: 'ada',
        password: 'Initial-Pw-1',
      }),
    );
    expect(created.status).toBe(201);
    const id = String(created.body?.id);

    const byPath = answer(
      await scimCall(
        `${s.endpoint}/Users/${id}`,
        'PATCH',
        patchOp({ op: 'replace', path: 'password', value: 'New-Pw-2' }),
      ),
    );
    const byValue = answer(
      await scimCall(
        `${s.endpoint}/Users/${id}`,
        'PATCH',
        patchOp({ op: 'replace', value: { password: 'New-Pw-3' } }),
      ),
    );
    const active = answer(
      await scimCall(
        `${s.endpoint}/Users/${id}`,
        'PATCH',
        patchOp({ op: 'replace', path: 'active', value: false }),
      ),
    );
    const config = answer(await scimCall(`${s.endpoint}/ServiceProviderConfig`));

    expect(byPath).toMatchObject({ status: 400, scimType: 'invalidPath' });
    expect(byValue).toMatchObject({ status: 400, scimType: 'invalidPath' });
    expect(active.status).toBe(200);
    expect(s.hasPassword('ada')).toBe(false);
    expect(s.truthLog().map((e) => e.change)).toEqual(['account created', 'account locked']);
    expect(config.body?.changePassword).toEqual({ supported: false });
  });

  it('keeps a password sent on create by default (the mode above is what differs)', async () => {
    const s = await start({});
    await scimCall(`${s.endpoint}/Users`, 'POST', {
      schemas: [USER],
      userName: 'ada',
      password: 'Pw-1x',
    });
    expect(s.hasPassword('ada')).toBe(true);
  });

  it('without groups: every /Groups path answers 404, and /ResourceTypes and /Schemas leave Group out', async () => {
    const s = await start({ quirks: { noGroups: true } });

    expect(answer(await scimCall(`${s.endpoint}/Groups`)).status).toBe(404);
    expect(answer(await scimCall(`${s.endpoint}/Groups/x`)).status).toBe(404);
    expect(
      answer(await scimCall(`${s.endpoint}/Groups`, 'POST', { schemas: [GROUP], displayName: 'G' }))
        .status,
    ).toBe(404);
    expect(s.listGroups()).toEqual([]);
    const types = answer(await scimCall(`${s.endpoint}/ResourceTypes`)).body;
    expect((types?.Resources as Array<{ id: string }>).map((t) => t.id)).toEqual(['User']);
    const schemas = answer(await scimCall(`${s.endpoint}/Schemas`)).body;
    expect((schemas?.Resources as Array<{ id: string }>).map((t) => t.id)).not.toContain(GROUP);
    expect(answer(await scimCall(`${s.endpoint}/ResourceTypes/Group`)).status).toBe(404);
  });

  it('refusing DELETE: 405 on users and groups, nothing deleted', async () => {
    const s = await start({ quirks: { deleteNotAllowed: true } });
    const [user] = s.seedUsers([{ userName: 'ada' }]);
    const [group] = s.seedGroups([{ displayName: 'Sales' }]);

    expect(answer(await scimCall(`${s.endpoint}/Users/${user!.id}`, 'DELETE')).status).toBe(405);
    expect(answer(await scimCall(`${s.endpoint}/Groups/${group!.id}`, 'DELETE')).status).toBe(405);
    expect(answer(await scimCall(`${s.endpoint}/Users/unknown`, 'DELETE')).status).toBe(404);
    expect(s.getUser('ada')).toBeDefined();
    expect(s.getGroup('Sales')).toBeDefined();
  });

  it('under a prefix, answers paths outside it with its own HTML pages (404, or 200 like a single-page app)', async () => {
    const s = await start({ prefix: BUILT_IN_APP_PREFIX, quirks: { outsidePrefix: 'html404' } });
    const origin = new URL(s.endpoint).origin;

    const missing = await fetch(`${origin}/scim/v2/Users`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('text/html');
    s.setQuirks({ outsidePrefix: 'html200' });
    const page = await fetch(`${origin}/scim/v2/Users`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html>');
    expect(answer(await scimCall(`${s.endpoint}/Users`)).status).toBe(200);
    expect(s.baseUrl).toBe(`${origin}/api/auth`);
  });

  it('as the whole built-in service: members only by internal id, pages of 100, and a config that says so', async () => {
    const s = await start({ prefix: BUILT_IN_APP_PREFIX, quirks: { ...BUILT_IN_APP_QUIRKS } });
    const [user] = s.seedUsers([{ userName: 'ada' }]);
    const [group] = s.seedGroups([{ displayName: 'Sales' }]);
    const add = (value: string) =>
      scimCall(
        `${s.endpoint}/Groups/${group!.id}`,
        'PATCH',
        patchOp({ op: 'add', path: 'members', value: [{ value }] }),
      );

    expect(answer(await add('ada'))).toMatchObject({ status: 400, scimType: 'invalidValue' });
    expect(answer(await add(user!.id)).status).toBe(200);
    const config = answer(await scimCall(`${s.endpoint}/ServiceProviderConfig`)).body;
    expect(config).toMatchObject({
      filter: { supported: true, maxResults: 100 },
      changePassword: { supported: false },
    });
    s.seedUsers(Array.from({ length: 150 }, (_, i) => ({ userName: `user${i}` })));
    expect(answer(await scimCall(`${s.endpoint}/Users?count=500`)).body).toMatchObject({
      totalResults: 151,
      itemsPerPage: 100,
    });
  });
});
