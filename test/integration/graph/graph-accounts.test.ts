import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GraphConnector } from '../../../src/connectors/graph';
import { runAccountAction } from '../../support/membership-procedure';
import {
  ADMIN,
  failureOf,
  requestLines,
  SECRET_NAME,
  startHarness,
  type Harness,
} from './graph-harness';
import { expectNoSecrets } from '../../support/no-secrets';

const NO_ROLES = { clientId: 'no-roles-app', secret: 'no-roles-secret-1', roles: [] };

let harness: Harness;
let graph: GraphConnector;

beforeAll(async () => {
  harness = await startHarness({ clients: [ADMIN, NO_ROLES] });
  graph = harness.connector();
});

afterAll(async () => {
  await harness.close();
});

beforeEach(() => {
  harness.sandbox.setReplicationDelay(0);
  harness.sandbox.setLicensed(true);
});

describe('status check (real MSAL over HTTPS)', () => {
  it('is ok when a token is obtained; without probes nothing is granted, the roles claim is a hint', async () => {
    const status = await graph.checkStatus();
    expect(status.ok).toBe(true);
    expect(status.findings[0]).toMatchObject({ name: 'Access token', outcome: 'ok' });
    expect(status.findings.slice(1).map((finding) => [finding.outcome, finding.evidence])).toEqual(
      Array(6).fill(['not verified', 'token']),
    );
    expect(harness.sandbox.stats.graphRequests).toBe(0);
  });

  it('reuses the MSAL cache: a second check asks the authority for nothing', async () => {
    const before = harness.sandbox.stats.tokenRequests;
    await graph.checkStatus();
    await graph.findAccount('nobody');
    expect(harness.sandbox.stats.tokenRequests).toBe(before);
  });

  it('with probe, runs the probe reads of graph-behaviour.md: read permissions proven, writes not', async () => {
    harness.sandbox.addUser({ userPrincipalName: 'probe.user@contoso.example' });
    harness.sandbox.setLicensed(false);
    const status = await harness.connector().checkStatus({ probe: true });
    expect(status.findings.slice(1).map((finding) => [finding.name, finding.outcome])).toEqual([
      ['Read accounts', 'granted'],
      ['Create, change, lock, delete accounts', 'not verified'],
      ['Read groups and group structure', 'granted'],
      ["Read an account's groups", 'granted'],
      ['Write memberships', 'not verified'],
      ['Last logon', 'not verified'],
    ]);
  });

  it('a wrong client secret fails the check clearly, without the secret', async () => {
    const wrong = 'Wr0ng-Secret-Value-42';
    const client = { ...ADMIN, secret: wrong };
    const status = await harness.connector({ client }).checkStatus();
    expect(status.ok).toBe(false);
    expect(status.summary).toContain('invalid_client');
    expect(status.summary).toContain('AADSTS7000215');
    expect(status.summary).toContain(`client secret "${SECRET_NAME}"`);
    expectNoSecrets(status, { 'wrong client secret': wrong }, 'the status');
  });

  it('an app without permissions still gets a token (spec: the check proves credentials only); the report says no permission is granted', async () => {
    const status = await harness.connector({ client: NO_ROLES }).checkStatus();
    expect(status.ok).toBe(true);
    expect(status.summary).toContain(
      `no application permission is granted to this app; grant admin consent for ${NO_ROLES.clientId} in tenant ${harness.sandbox.tenantId}`,
    );
    expect(status.findings.slice(1).map((finding) => finding.outcome)).toEqual(
      Array(7).fill('missing'),
    );
  });

  it('probe reads of an app without permissions name what to grant', async () => {
    const status = await harness.connector({ client: NO_ROLES }).checkStatus({ probe: true });
    const probed = status.findings.filter((finding) => finding.evidence === 'probe');
    expect(probed.map((finding) => finding.name)).toEqual([
      'Read accounts',
      'Read groups and group structure',
      "Read an account's groups",
      'Last logon',
    ]);
    expect(probed[0]?.detail).toContain('(grant User.Read.All)');
    expect(probed[1]?.detail).toContain('(grant GroupMember.Read.All)');
    expect(probed[3]?.detail).toContain('(grant AuditLog.Read.All and User.Read.All)');
  });

  it('an unknown client fails the check', async () => {
    const status = await harness
      .connector({ client: { clientId: 'nobody', secret: 'nobody-secret', roles: [] } })
      .checkStatus();
    expect(status).toMatchObject({
      ok: false,
      findings: [{ name: 'Access token', outcome: 'failed' }],
    });
    expect(status.summary).toContain('no access token');
  });
});

describe('accounts', () => {
  it('creates enabled, with the UPN domain appended and mailNickname from the name part', async () => {
    const created = await graph.createAccount(
      { accountId: "Jose.O'Neil", displayName: 'José O’Neil', attributes: {} },
      'Initial-Passw0rd!',
    );
    if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
    expect(created.account).toMatchObject({
      accountId: "Jose.O'Neil@contoso.example",
      enabled: true,
    });
    const stored = harness.sandbox.getUser(created.account.id);
    expect(stored).toMatchObject({
      mailNickname: "Jose.O'Neil",
      accountEnabled: true,
      displayName: 'José O’Neil',
    });
  });

  it('passes on the directory refusing a user name with accents, creating nothing', async () => {
    // Entra ID's user name policy: no accents in userPrincipalName.
    await expect(
      graph.createAccount({ accountId: 'José.Nuñez' }, 'Initial-Passw0rd!'),
    ).rejects.toMatchObject({
      code: 'GRAPH_REQUEST_REJECTED',
      message: expect.stringContaining('Property userPrincipalName is invalid.'),
    });
    expect(harness.sandbox.userIdByUpn('José.Nuñez@contoso.example')).toBeUndefined();
  });

  it('adopts an existing account with the same UPN (ObjectConflict)', async () => {
    const { id } = harness.sandbox.addUser({ userPrincipalName: 'existing@contoso.example' });
    const result = await graph.createAccount({ accountId: 'existing' }, 'Initial-Passw0rd!');
    expect(result).toMatchObject({
      outcome: 'adopted',
      account: { id, accountId: 'existing@contoso.example' },
    });
  });

  it('creates without a given password (a random one Graph accepts)', async () => {
    const result = await graph.createAccount({ accountId: 'nopass' });
    expect(result.outcome).toBe('created');
  });

  it('a refused create names the account and never the password', async () => {
    const password = 'Unverified-Domain-Pw1';
    const error = await failureOf(
      graph.createAccount({ accountId: 'someone@not-verified.example' }, password),
    );
    expect(error).toMatchObject({ code: 'GRAPH_REQUEST_REJECTED' });
    expect(error.message).toContain('someone@not-verified.example');
    expectNoSecrets(error.message, { password }, 'the error');
  });

  it('reads all accounts across pages, following @odata.nextLink', async () => {
    for (let i = 0; i < 5; i++)
      harness.sandbox.addUser({ userPrincipalName: `list${i}@contoso.example` });
    const paged = harness.connector({ pageSize: 2 });
    harness.sandbox.clearRequests();
    const seen: string[] = [];
    for await (const account of paged.listAccounts()) seen.push(account.accountId);
    for (let i = 0; i < 5; i++) expect(seen).toContain(`list${i}@contoso.example`);
    expect(new Set(seen).size).toBe(seen.length);
    const pages = requestLines(harness.sandbox).filter((line) =>
      line.startsWith('GET /v1.0/users'),
    );
    expect(pages.length).toBe(Math.ceil(seen.length / 2));
  });

  it('finds, changes, sets the password and deletes', async () => {
    const { id } = harness.sandbox.addUser({
      userPrincipalName: 'cycle@contoso.example',
      displayName: 'Old',
    });
    const account = await graph.findAccount('cycle');
    expect(account).toEqual({
      id,
      accountId: 'cycle@contoso.example',
      displayName: 'Old',
      enabled: true,
    });
    await graph.updateAccount(account!, { displayName: 'New', familyName: 'Cycle' });
    expect(harness.sandbox.getUser(id)).toMatchObject({ displayName: 'New', surname: 'Cycle' });
    await graph.setPassword(account!, 'Changed-Passw0rd!');
    expect(harness.sandbox.getUser(id)?.passwordProfile).toMatchObject({
      password: 'Changed-Passw0rd!',
    });
    expect((await graph.deleteAccount(account!)).outcome).toBe('deleted');
    expect(harness.sandbox.getUser(id)).toBeUndefined();
    expect((await graph.deleteAccount(account!)).outcome).toBe('absent');
    expect(await graph.findAccount('cycle')).toBeUndefined();
  });
});

describe('lock and unlock: one PATCH, then the step reads back on its timer', () => {
  it('locks; a read-back that still shows the old state is read again a second later', async () => {
    const { id } = harness.sandbox.addUser({ userPrincipalName: 'lock1@contoso.example' });
    const account = (await graph.findAccount('lock1'))!;
    harness.sandbox.failNextLockReadBack(id);
    harness.sandbox.clearRequests();
    const started = harness.clock.now();
    const outcome = await runAccountAction(graph, account, 'lock', harness.clock);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account locked' }] });
    expect(harness.sandbox.getUser(id)?.accountEnabled).toBe(false);
    expect(requestLines(harness.sandbox).filter((line) => line.startsWith('PATCH'))).toHaveLength(
      1,
    );
    expect(requestLines(harness.sandbox).filter((line) => line.startsWith('GET'))).toHaveLength(2);
    expect(harness.clock.now() - started).toBe(1_000);
  });

  it('not confirmed within 30 s -> an error naming the expected and the seen state', async () => {
    harness.sandbox.addUser({ userPrincipalName: 'lock2@contoso.example' });
    const account = (await graph.findAccount('lock2'))!;
    harness.sandbox.setReplicationDelay(60_000);
    const started = harness.clock.now();
    const outcome = await runAccountAction(graph, account, 'lock', harness.clock);
    expect(outcome.error).toMatchObject({
      code: 'ACCOUNT_STATE_NOT_CONFIRMED',
      details: { expected: false, seen: true, reads: 9 },
    });
    expect(outcome.error?.message).toContain('expected locked, read back unlocked');
    expect(harness.clock.now() - started).toBe(30_000);
    // The PATCH went out and the truth is locked: the failure says the read did not show it.
    expect(outcome.changes).toEqual([{ change: 'account locked' }]);
  });

  it('unlocks', async () => {
    const { id } = harness.sandbox.addUser({
      userPrincipalName: 'lock3@contoso.example',
      accountEnabled: false,
    });
    const account = (await graph.findAccount('lock3'))!;
    expect(account.enabled).toBe(false);
    const outcome = await runAccountAction(graph, account, 'unlock', harness.clock);
    expect(outcome.ok).toBe(true);
    expect(harness.sandbox.getUser(id)?.accountEnabled).toBe(true);
  });

  it('reads back an update: the profile Graph shows after the PATCH', async () => {
    harness.sandbox.addUser({ userPrincipalName: 'update1@contoso.example', displayName: 'Old' });
    const account = (await graph.findAccount('update1'))!;
    harness.sandbox.setReplicationDelay(3_000);
    const outcome = await runAccountAction(graph, account, 'update', harness.clock, {
      accountId: account.accountId,
      displayName: 'New Name',
      givenName: 'New',
    });
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account updated' }] });
    expect(await graph.readAccount(account)).toMatchObject({
      profile: { displayName: 'New Name', givenName: 'New' },
    });
  });
});

describe('last logon (signInActivity)', () => {
  it('is the latest of interactive, non-interactive and successful sign-ins', async () => {
    harness.sandbox.addUser({
      userPrincipalName: 'signin@contoso.example',
      signInActivity: {
        lastSignInDateTime: '2026-01-01T08:00:00Z',
        lastNonInteractiveSignInDateTime: '2026-01-03T08:00:00Z',
        lastSuccessfulSignInDateTime: null,
      },
    });
    const account = (await graph.findAccount('signin'))!;
    expect(await graph.readLastLogon(account)).toEqual({
      status: 'found',
      value: '2026-01-03T08:00:00.000Z',
      detail: 'signInActivity',
    });
  });

  it('none found when every value is null', async () => {
    harness.sandbox.addUser({ userPrincipalName: 'never@contoso.example' });
    const account = (await graph.findAccount('never'))!;
    expect((await graph.readLastLogon(account)).status).toBe('none found');
  });

  it('a tenant without the licence gets "not available", not a failure', async () => {
    const account = (await graph.findAccount('never'))!;
    harness.sandbox.setLicensed(false);
    expect(await graph.readLastLogon(account)).toMatchObject({ status: 'not available' });
  });
});
