import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScimConnector } from '../../../src/connectors/scim/scim-connector';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import { createdAccount, runMembership } from '../../support/membership-procedure';
import { BASIC_PASSWORD, TOKEN, startScimTarget, type ScimTarget } from '../../support/scim-target';
import { expectNoSecrets } from '../../support/no-secrets';

let target: ScimTarget;

beforeAll(async () => {
  target = await startScimTarget({ quirks: { lastLogonAttribute: 'lastLogin' } });
  target.sandbox.seedGroups([
    { displayName: 'Engineering' },
    { displayName: 'Sales' },
    { displayName: 'Sales Ops' },
  ]);
});
afterAll(async () => target.close());

describe('connector A against a conforming SCIM server', () => {
  it('checks status through /scim/v2/ServiceProviderConfig', async () => {
    const status = await target.connector.checkStatus();
    expect(status.ok).toBe(true);
    expect(status.findings[0]).toMatchObject({ name: 'ServiceProviderConfig', outcome: 'ok' });
    expect(target.sandbox.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/scim/v2/ServiceProviderConfig',
    });
  });

  it('creates an account with the spec attributes, the password only when given', async () => {
    const { connector, sandbox } = target;
    const result = await connector.createAccount(
      {
        accountId: 'jane.doe',
        displayName: 'Jane Doe',
        givenName: 'Jane',
        familyName: 'Doe',
        email: 'jane@example.com',
      },
      'Init-Passw0rd!',
    );
    expect(result).toMatchObject({
      outcome: 'created',
      account: { accountId: 'jane.doe', enabled: true },
    });
    const stored = sandbox.getUser('jane.doe')!;
    expect(stored).toMatchObject({
      userName: 'jane.doe',
      displayName: 'Jane Doe',
      name: { givenName: 'Jane', familyName: 'Doe' },
      active: true,
      emails: [expect.objectContaining({ value: 'jane@example.com', primary: true })],
    });
    const post = sandbox.requests.find((r) => r.method === 'POST' && r.path === '/scim/v2/Users')!;
    expect(post.body).toHaveProperty('password');
    await connector.createAccount({ accountId: 'no.password' });
    const second = sandbox.requests.filter((r) => r.method === 'POST').at(-1)!;
    expect(second.body).not.toHaveProperty('password');
  });

  it('adopts the existing account on a 409 uniqueness instead of failing', async () => {
    const again = await target.connector.createAccount({
      accountId: 'JANE.DOE',
      displayName: 'Jane',
    });
    expect(again).toMatchObject({ outcome: 'adopted', account: { accountId: 'jane.doe' } });
  });

  it('finds an account by userName eq, and nothing for an unknown one', async () => {
    expect(await target.connector.findAccount('jane.doe')).toMatchObject({ accountId: 'jane.doe' });
    expect(await target.connector.findAccount('nobody')).toBeUndefined();
    const search = target.sandbox.requests.at(-1)!;
    expect(search.query.filter).toBe('userName eq "nobody"');
  });

  it('keeps an account ID with a quote inside the filter literal', async () => {
    const { connector } = target;
    await connector.createAccount({ accountId: 'o"brien' });
    expect(await connector.findAccount('o"brien')).toMatchObject({ accountId: 'o"brien' });
    expect(await connector.findAccount('o" or userName pr or "')).toBeUndefined();
  });

  it('changes, locks, unlocks and sets the password with PATCH', async () => {
    const { connector, sandbox } = target;
    const account = (await connector.findAccount('jane.doe'))!;
    await connector.updateAccount(account, { displayName: 'Jane Q. Doe', familyName: 'Quinn' });
    expect(sandbox.getUser('jane.doe')).toMatchObject({
      displayName: 'Jane Q. Doe',
      name: { familyName: 'Quinn' },
    });
    await connector.setEnabled(account, false);
    expect(sandbox.getUser('jane.doe')?.active).toBe(false);
    expect((await connector.findAccount('jane.doe'))?.enabled).toBe(false);
    await connector.setEnabled(account, true);
    expect(sandbox.getUser('jane.doe')?.active).toBe(true);
    await connector.setPassword(account, 'New-Passw0rd!');
    const patch = sandbox.requests.at(-1)!;
    expect(patch).toMatchObject({ method: 'PATCH', path: `/scim/v2/Users/${account.id}` });
    // The sandbox records passwords redacted; the shape is what is checked here.
    expect(patch.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'password', value: expect.any(String) }],
    });
  });

  it('imports the catalogue, finds a group by name and searches with co', async () => {
    const { connector } = target;
    const names: string[] = [];
    for await (const group of connector.importGroups()) names.push(group.displayName);
    expect(names).toEqual(['Engineering', 'Sales', 'Sales Ops']);
    expect(await connector.findGroup('Sales')).toMatchObject({ displayName: 'Sales' });
    expect(await connector.findGroup('sales')).toMatchObject({ displayName: 'Sales' });
    expect(await connector.findGroup('Nope')).toBeUndefined();
    expect((await connector.searchGroups('ales')).map((g) => g.displayName)).toEqual([
      'Sales',
      'Sales Ops',
    ]);
  });

  it('grants and revokes with the account ID as member value, leaving other members alone', async () => {
    const { connector, sandbox } = target;
    const sales = (await connector.findGroup('Sales'))!;
    const eng = (await connector.findGroup('Engineering'))!;
    const account = (await connector.findAccount('jane.doe'))!;
    const other = await createdAccount(connector, { accountId: 'other.member' });
    await runMembership(connector, other, 'grant', [sales.id]);

    const granted = await runMembership(connector, account, 'grant', [sales.id, eng.id]);
    expect(granted.changes.map((c) => `${c.change} ${c.groupName}`).sort()).toEqual([
      'member added Engineering',
      'member added Sales',
    ]);
    expect(memberValues(sandbox.getGroup(sales.id))).toEqual(['other.member', 'jane.doe']);

    const again = await runMembership(connector, account, 'grant', [sales.id]);
    expect(again.changes).toEqual([]);
    expect(again.notices).toContain(
      'already as requested, nothing changed: Sales (' + sales.id + ')',
    );

    const revoked = await runMembership(connector, account, 'revoke', [sales.id]);
    expect(revoked.changes).toEqual([
      expect.objectContaining({ change: 'member removed', groupName: 'Sales' }),
    ]);
    expect(memberValues(sandbox.getGroup(sales.id))).toEqual(['other.member']);
    expect(memberValues(sandbox.getGroup(eng.id))).toEqual(['jane.doe']);
    // The configured form, then RFC 7643's own (the SCIM id), which a group may hold as well.
    const removals = sandbox.requests
      .filter((r) => r.method === 'PATCH' && r.path.endsWith(sales.id))
      .slice(-2)
      .map((r) => r.body);
    expect(removals).toMatchObject([
      { Operations: [{ op: 'remove', path: 'members[value eq "jane.doe"]' }] },
      { Operations: [{ op: 'remove', path: `members[value eq "${account.id}"]` }] },
    ]);
  });

  it('fails a grant on an unknown group naming the group', async () => {
    const account = (await target.connector.findAccount('jane.doe'))!;
    const outcome = await runMembership(target.connector, account, 'grant', ['no-such-group']);
    expect(outcome.error).toMatchObject({ code: 'GROUP_NOT_FOUND', object: 'no-such-group' });
  });

  it('reads the last logon from a known attribute, or says none found', async () => {
    const { connector, sandbox } = target;
    sandbox.setLastLogon('jane.doe', '2026-11-20T10:00:00Z');
    const account = (await connector.findAccount('jane.doe'))!;
    expect(await connector.readLastLogon(account)).toEqual({
      status: 'found',
      value: '2026-11-20T10:00:00.000Z',
      detail: 'lastLogin',
    });
    const fresh = (await connector.findAccount('no.password'))!;
    expect(await connector.readLastLogon(fresh)).toEqual({ status: 'none found' });
  });

  it('deletes an account, and counts deleting an absent one as done', async () => {
    const { connector, sandbox } = target;
    const account = (await connector.findAccount('no.password'))!;
    expect((await connector.deleteAccount(account)).outcome).toBe('deleted');
    expect(sandbox.getUser('no.password')).toBeUndefined();
    expect((await connector.deleteAccount(account)).outcome).toBe('absent');
  });
});

describe('connector A authentication', () => {
  it('sends Basic credentials and works', async () => {
    const basic = await startScimTarget({
      auth: { type: 'basic', username: 'svc', password: BASIC_PASSWORD },
    });
    try {
      expect((await basic.connector.checkStatus()).ok).toBe(true);
      expect((await basic.connector.createAccount({ accountId: 'b1' })).outcome).toBe('created');
    } finally {
      await basic.close();
    }
  });

  it('sends no credentials with auth None', async () => {
    const open = await startScimTarget({ auth: { type: 'none' } });
    try {
      expect((await open.connector.createAccount({ accountId: 'n1' })).outcome).toBe('created');
    } finally {
      await open.close();
    }
  });

  it('reports refused credentials without revealing them', async () => {
    const wrong = new ScimConnector(target.settings, {
      secrets: new LocalSecretStore({ 'scim-token': 'wrong-token-value-123' }),
    });
    try {
      const status = await wrong.checkStatus();
      expect(status.ok).toBe(false);
      expect(status.summary).toContain('refused the bearer credentials (401)');
      const error = await wrong.findAccount('x').catch((e: Error & { code: string }) => e);
      expect(error).toMatchObject({ code: 'TARGET_AUTH_FAILED', status: 401 });
      expectNoSecrets(
        [status, (error as Error).message],
        { 'wrong token': 'wrong-token-value-123', token: TOKEN },
        'the status and the error',
      );
    } finally {
      await wrong.close();
    }
  });

  it('names the missing secret when the store does not have it', async () => {
    const missing = new ScimConnector(target.settings, { secrets: new LocalSecretStore({}) });
    await expect(missing.findAccount('x')).rejects.toMatchObject({
      code: 'SECRET_NOT_FOUND',
      object: 'scim-token',
    });
    await missing.close();
  });
});

function memberValues(group: Record<string, unknown> | undefined): string[] {
  return ((group?.members ?? []) as Array<{ value: string }>).map((m) => m.value);
}
