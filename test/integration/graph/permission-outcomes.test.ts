import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetAccount } from '../../../src/domain/account';
import { runAccountAction } from '../../support/membership-procedure';
import { ADMIN, failureOf, startHarness, type Harness } from './graph-harness';

/**
 * Issue 12, findings 1, 2 and 4 on the connector: what a call does when the app lacks a
 * permission or a privilege, judged by the Graph sandbox's truth (real MSAL, real HTTPS).
 */
const USERS_AND_MEMBERS = {
  clientId: 'users-and-members-app',
  secret: 'users-and-members-secret',
  roles: ['User.ReadWrite.All', 'GroupMember.ReadWrite.All'],
};
const USER_READ = {
  clientId: 'user-read-app',
  secret: 'user-read-secret',
  roles: ['User.Read.All'],
};
const PRIVILEGED = {
  ...ADMIN,
  clientId: 'privileged-app',
  secret: 'privileged-secret',
  directoryRoles: ['Privileged Authentication Administrator' as const],
};

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ clients: [ADMIN, USERS_AND_MEMBERS, USER_READ, PRIVILEGED] });
});
afterAll(async () => harness.close());

function seedAccount(upn: string): TargetAccount {
  const { id } = harness.sandbox.addUser({ userPrincipalName: upn });
  return { id, accountId: upn, enabled: true };
}

describe('an account that holds a directory role (finding 1)', () => {
  it('lock, change and delete fail with GRAPH_ACCOUNT_PRIVILEGED naming the role, not User.ReadWrite.All', async () => {
    const account = seedAccount('global.admin@contoso.example');
    const role = harness.sandbox.addDirectoryRole({ displayName: 'Global Administrator' });
    harness.sandbox.addMember(role.id, account.id);
    const graph = harness.connector();
    harness.sandbox.clearTruthLog();
    for (const call of [
      () => graph.setEnabled(account, false),
      () => graph.updateAccount(account, { displayName: 'Renamed' }),
      () => graph.deleteAccount(account),
    ]) {
      const error = await failureOf(call());
      expect(error.code).toBe('GRAPH_ACCOUNT_PRIVILEGED');
      expect(error.message).toContain('holds the directory role Global Administrator');
      expect(error.message).toContain('User.ReadWrite.All is not enough');
      expect(error.details).not.toHaveProperty('permission');
    }
    expect(harness.sandbox.truthLog()).toEqual([]);
    expect(harness.sandbox.getUser(account.id)).toMatchObject({ accountEnabled: true });
  });

  it('the lock step fails with that code; an app holding Privileged Authentication Administrator locks the account', async () => {
    const account = seedAccount('helpdesk.admin@contoso.example');
    const role = harness.sandbox.addDirectoryRole({ displayName: 'Helpdesk Administrator' });
    harness.sandbox.addMember(role.id, account.id);
    const refused = await runAccountAction(harness.connector(), account, 'lock', harness.clock);
    expect(refused).toMatchObject({ error: { code: 'GRAPH_ACCOUNT_PRIVILEGED' } });
    expect(harness.sandbox.getUser(account.id)?.accountEnabled).toBe(true);
    const locked = await runAccountAction(
      harness.connector({ client: PRIVILEGED }),
      account,
      'lock',
      harness.clock,
    );
    expect(locked).not.toHaveProperty('error');
    expect(harness.sandbox.getUser(account.id)?.accountEnabled).toBe(false);
  });

  it('an app without User.ReadWrite.All changing an account without a role: the permission is named', async () => {
    const account = seedAccount('plain.user@contoso.example');
    const error = await failureOf(
      harness.connector({ client: USER_READ }).setEnabled(account, false),
    );
    expect(error.code).toBe('GRAPH_PERMISSION_MISSING');
    expect(error.details).toMatchObject({ permission: 'User.ReadWrite.All' });
    expect(harness.sandbox.getUser(account.id)?.accountEnabled).toBe(true);
  });
});

describe('last logon without AuditLog.Read.All (finding 2)', () => {
  it('is "not available (needs AuditLog.Read.All)", and the account still reads', async () => {
    const account = seedAccount('no.audit@contoso.example');
    const graph = harness.connector({ client: USERS_AND_MEMBERS });
    expect(await graph.findAccount('no.audit')).toMatchObject({ id: account.id });
    expect(await graph.readLastLogon(account)).toEqual({
      status: 'not available',
      detail: 'needs AuditLog.Read.All',
    });
  });
});

describe('groups the app may not read (finding 4)', () => {
  it('direct memberships keep the group by its id, with a notice saying why', async () => {
    const account = seedAccount('limited.member@contoso.example');
    const hidden = harness.sandbox.addGroup({ displayName: 'Hidden Group', limited: true });
    const shown = harness.sandbox.addGroup({ displayName: 'Shown Group' });
    harness.sandbox.addMember(hidden.id, account.id);
    harness.sandbox.addMember(shown.id, account.id);
    const read = await harness.connector().readMemberships(account, []);
    expect([...read.groupIds].sort()).toEqual([hidden.id, shown.id].sort());
    expect(read.names[shown.id]).toBe('Shown Group');
    expect(read.notices).toEqual([
      `group ${hidden.id}: the app lacks permission to read this group: Microsoft Graph returned only its type and id`,
    ]);
  });

  it('an app without a group read permission sees every group that way, and inherited memberships say so', async () => {
    const account = seedAccount('no.group.read@contoso.example');
    const team = harness.sandbox.addGroup({ displayName: 'Team' });
    harness.sandbox.addMember(team.id, account.id);
    const inherited = await harness
      .connector({ client: USER_READ })
      .readInheritedMemberships(account);
    expect(inherited.direct).toEqual([
      { id: team.id, displayName: team.id, notReadable: expect.any(String) as unknown },
    ]);
    expect(inherited.notices.map((notice) => notice.kind)).toEqual(['not-readable']);
    expect(inherited.complete).toBe(false);
  });
});
