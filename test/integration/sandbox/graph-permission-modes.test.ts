import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_CLIENT, startGraphSandbox } from '../../../src/sandbox/graph/index.js';
import type { GraphSandbox } from '../../../src/sandbox/graph/index.js';
import { graphTestClient, newUserBody } from './graph-test-client.js';
import type { GraphAnswer, GraphTestClient } from './graph-test-client.js';

/**
 * The Graph sandbox as hostile as Graph for what an app may read and change: permission
 * sets per app, tokens without `roles`, accounts only privileged roles may change, groups
 * the app may not read, and object ids that are not GUIDs.
 */
const USERS_AND_MEMBERS = {
  clientId: 'users-and-members',
  secret: 'users-and-members-secret',
  roles: ['User.ReadWrite.All', 'GroupMember.ReadWrite.All'],
};
const USER_READ = { clientId: 'user-read', secret: 'user-read-secret', roles: ['User.Read.All'] };
const MEMBER_READ = {
  clientId: 'member-read',
  secret: 'member-read-secret',
  roles: ['GroupMember.Read.All'],
};
const NO_ROLES = { clientId: 'no-roles', secret: 'no-roles-secret', roles: [] };
const PRIVILEGED = {
  clientId: 'privileged',
  secret: 'privileged-secret',
  roles: ['User.ReadWrite.All'],
  directoryRoles: ['Privileged Authentication Administrator' as const],
};

let sandbox: GraphSandbox;
const clients: Record<string, GraphTestClient> = {};
let user: string;
let group: string;
let limited: string;
let role: string;

beforeAll(async () => {
  const apps = [DEFAULT_SANDBOX_CLIENT, USERS_AND_MEMBERS, USER_READ, MEMBER_READ, NO_ROLES];
  sandbox = await startGraphSandbox({ clients: [...apps, PRIVILEGED] });
  for (const app of [...apps, PRIVILEGED]) {
    clients[app.clientId] = await graphTestClient(sandbox, app);
  }
  user = sandbox.addUser({ userPrincipalName: 'mode.user@contoso.example' }).id;
  group = sandbox.addGroup({ displayName: 'Open Group' }).id;
  limited = sandbox.addGroup({ displayName: 'Closed Group', limited: true }).id;
  role = sandbox.addDirectoryRole({ displayName: 'Helpdesk Administrator' }).id;
  for (const container of [group, limited]) sandbox.addMember(container, user);
});

afterAll(async () => {
  await Promise.all(Object.values(clients).map((client) => client.close()));
  await sandbox.close();
});

const as = (app: { clientId: string }) => clients[app.clientId]!;
const answered = (answer: GraphAnswer) => {
  if (answer.reset) throw new Error(`connection reset: ${answer.code}`);
  return answer;
};
const memberOf = async (app: { clientId: string }, id = user) =>
  answered(await as(app).call('GET', `/users/${id}/memberOf?$select=id,displayName`));

describe("an account's memberOf, per permission set", () => {
  it('User.ReadWrite.All + GroupMember.ReadWrite.All read it with the groups in full', async () => {
    const answer = await memberOf(USERS_AND_MEMBERS);
    expect(answer.status).toBe(200);
    expect(answer.body.value).toContainEqual({
      '@odata.type': '#microsoft.graph.group',
      id: group,
      displayName: 'Open Group',
    });
  });

  it('User.Read.All alone reads it, every group with only its type and id', async () => {
    const answer = await memberOf(USER_READ);
    expect(answer.status).toBe(200);
    expect(answer.body.value).toContainEqual({
      '@odata.type': '#microsoft.graph.group',
      id: group,
    });
  });

  it('GroupMember.Read.All alone may not read the user: 403', async () => {
    expect((await memberOf(MEMBER_READ)).status).toBe(403);
  });

  it('a token without a roles claim gets Graph\'s "Required roles claim values are not provided"', async () => {
    const claims = decodeJwt(as(NO_ROLES).token);
    expect(claims).not.toHaveProperty('roles');
    const answer = await memberOf(NO_ROLES);
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({
      code: 'Authorization_RequestDenied',
      message: 'Required roles claim values are not provided.',
    });
  });
});

describe('a group the app may not read (limited)', () => {
  it('shows in memberOf and members with only its type and id, whatever the permissions', async () => {
    const answer = await memberOf(DEFAULT_SANDBOX_CLIENT);
    expect(answer.body.value).toContainEqual({
      '@odata.type': '#microsoft.graph.group',
      id: limited,
    });
    expect(JSON.stringify(answer.body)).not.toContain('Closed Group');
  });

  it('is left out of GET /groups, and GET /groups/{id} answers 403', async () => {
    const admin = as(DEFAULT_SANDBOX_CLIENT);
    const list = answered(await admin.call('GET', '/groups?$select=id,displayName'));
    expect(list.body.value?.map((g) => g.id)).toContain(group);
    expect(list.body.value?.map((g) => g.id)).not.toContain(limited);
    const read = answered(await admin.call('GET', `/groups/${limited}`));
    expect(read.status).toBe(403);
    expect(read.body.error?.code).toBe('Authorization_RequestDenied');
  });
});

describe('group ids', () => {
  it('an id that is not a GUID answers 400 "Invalid object identifier", not 404', async () => {
    for (const path of ['/groups/Sales', '/groups/Sales/members', '/groups/Sales/memberOf']) {
      const answer = answered(await as(DEFAULT_SANDBOX_CLIENT).call('GET', path));
      expect([path, answer.status, answer.body.error]).toEqual([
        path,
        400,
        expect.objectContaining({
          code: 'Request_BadRequest',
          message: "Invalid object identifier 'Sales'.",
        }),
      ]);
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(
      answered(await as(DEFAULT_SANDBOX_CLIENT).call('GET', `/groups/${unknown}`)).status,
    ).toBe(404);
  });
});

describe('an account that holds a directory role', () => {
  it('User.ReadWrite.All may not change or delete it: 403 Authorization_RequestDenied, nothing changes', async () => {
    const id = sandbox.addUser({ userPrincipalName: 'role.holder@contoso.example' }).id;
    sandbox.addMember(role, id);
    sandbox.clearTruthLog();
    const app = as(USERS_AND_MEMBERS);
    for (const [method, body] of [
      ['PATCH', { accountEnabled: false }],
      ['DELETE', undefined],
    ] as const) {
      const answer = answered(await app.call(method, `/users/${id}`, body));
      expect([method, answer.status, answer.body.error?.code]).toEqual([
        method,
        403,
        'Authorization_RequestDenied',
      ]);
    }
    expect(sandbox.truthLog()).toEqual([]);
    expect(sandbox.getUser(id)?.accountEnabled).toBe(true);
  });

  it('an app holding Privileged Authentication Administrator (wids) may; other accounts need no role', async () => {
    const id = sandbox.addUser({ userPrincipalName: 'role.holder2@contoso.example' }).id;
    sandbox.addMember(role, id);
    expect(decodeJwt(as(PRIVILEGED).token).wids).toEqual(['7be44c8a-adaf-4e2a-84d6-ab2649e08a13']);
    const patched = answered(
      await as(PRIVILEGED).call('PATCH', `/users/${id}`, { accountEnabled: false }),
    );
    expect(patched.status).toBe(204);
    expect(sandbox.getUser(id)?.accountEnabled).toBe(false);
    const created = answered(
      await as(USERS_AND_MEMBERS).call('POST', '/users', newUserBody('Plain.One')),
    );
    const plain = String(created.body.id);
    expect(
      answered(
        await as(USERS_AND_MEMBERS).call('PATCH', `/users/${plain}`, { accountEnabled: false }),
      ).status,
    ).toBe(204);
  });
});
