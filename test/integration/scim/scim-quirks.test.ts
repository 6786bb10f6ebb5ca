import { ScimConnector } from '../../../src/connectors/scim/scim-connector';
import { afterEach, describe, expect, it } from 'vitest';
import { SEARCH_MATCH_LIMIT } from '../../../src/connectors/connector';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import {
  createdAccount,
  runAccountAction,
  runMembership,
} from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function withQuirks(quirks: ScimQuirks, settings: Record<string, unknown> = {}) {
  target = await startScimTarget({ quirks }, settings);
  return target;
}

async function importNames(t: ScimTarget): Promise<string[]> {
  const names: string[] = [];
  for await (const group of t.connector.importGroups()) names.push(group.displayName);
  return names;
}

/** An account and a group on the target, ready for a grant. */
async function accountAndGroup(t: ScimTarget) {
  const [group] = t.sandbox.seedGroups([{ displayName: 'Team' }]);
  const account = await createdAccount(t.connector, { accountId: 'member.one' });
  return { account, groupId: group!.id };
}

const groupPatches = (t: ScimTarget) =>
  t.sandbox.requests.filter((r) => r.method === 'PATCH' && r.path.includes('/Groups/'));

describe('connector A paging across server quirks', () => {
  it.each<[string, ScimQuirks, number]>([
    ['count capped at 10', { maxCount: 10 }, 5],
    ['numbers as strings', { maxCount: 10, numbersAsStrings: true }, 5],
    ['totalResults missing', { maxCount: 10, omitTotalResults: true }, 6],
    [
      'startIndex ignored (whole list each time)',
      { ignoreStartIndex: true, omitTotalResults: true },
      2,
    ],
  ])('reads all 45 groups once with %s', async (_name, quirks, requests) => {
    const t = await withQuirks(quirks, { pageSize: 20 });
    t.sandbox.seedGroups(Array.from({ length: 45 }, (_, i) => ({ displayName: `G${i}` })));
    t.sandbox.clearRequests();
    const names = await importNames(t);
    expect(names).toHaveLength(45);
    expect(new Set(names).size).toBe(45);
    expect(t.sandbox.requests).toHaveLength(requests);
  });

  it('lists every account across capped pages', async () => {
    const t = await withQuirks({ maxCount: 3 }, { pageSize: 50 });
    t.sandbox.seedUsers(
      Array.from({ length: 8 }, (_, i) => ({ userName: `u${i}`, active: i !== 2 })),
    );
    const accounts: string[] = [];
    for await (const account of t.connector.listAccounts())
      accounts.push(`${account.accountId}:${account.enabled}`);
    expect(accounts).toHaveLength(8);
    expect(accounts).toContain('u2:false');
  });

  it('a group search reads every page of matches from a server that caps count', async () => {
    const t = await withQuirks({ maxCount: 3 }, { pageSize: 50 });
    t.sandbox.seedGroups([
      ...Array.from({ length: 8 }, (_, i) => ({ displayName: `Team ${i}` })),
      { displayName: 'Finance' },
    ]);
    t.sandbox.clearRequests();
    const found = (await t.connector.searchGroups('team')).map((group) => group.displayName);
    // The truth: every group whose name contains the text, each once.
    expect(found.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `Team ${i}`));
    expect(t.sandbox.requests.map((r) => r.query.startIndex)).toEqual(['1', '4', '7']);
    expect(t.sandbox.requests.every((r) => r.query.filter === 'displayName co "team"')).toBe(true);
  });

  it('a group search that matches more than the limit asks to narrow it, not cut short', async () => {
    const t = await withQuirks({ maxCount: 200 }, { pageSize: 200 });
    t.sandbox.seedGroups(
      Array.from({ length: SEARCH_MATCH_LIMIT + 1 }, (_, i) => ({ displayName: `Broad ${i}` })),
    );
    await expect(t.connector.searchGroups('Broad')).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
      object: 'Broad',
      message: expect.stringContaining(
        `more than ${SEARCH_MATCH_LIMIT} groups containing "Broad": narrow the search`,
      ),
    });
  });

  it('refuses to return a silently short catalogue from a capped server that ignores startIndex', async () => {
    const t = await withQuirks({ ignoreStartIndex: true, maxCount: 10 });
    t.sandbox.seedGroups(Array.from({ length: 25 }, (_, i) => ({ displayName: `G${i}` })));
    await expect(importNames(t)).rejects.toMatchObject({
      code: 'TARGET_RESPONSE_INVALID',
      message: expect.stringMatching(/repeats its pages.*read 10 of 25/),
    });
  });
});

describe('connector A tolerates', () => {
  it('404 for a filter with no match: an empty result', async () => {
    const t = await withQuirks({ notFoundOnEmptyFilter: true });
    expect(await t.connector.findAccount('nobody')).toBeUndefined();
    expect(await t.connector.findGroup('Nothing')).toBeUndefined();
    expect(await t.connector.searchGroups('zzz')).toEqual([]);
    expect((await t.connector.createAccount({ accountId: 'a1' })).outcome).toBe('created');
  });

  it('PATCH answered 204 without a body: verified by asking the server about the member', async () => {
    const t = await withQuirks({ patchNoContent: true });
    const { account, groupId } = await accountAndGroup(t);
    t.sandbox.clearRequests();
    const outcome = await runMembership(t.connector, account, 'grant', [groupId]);
    expect(outcome.ok).toBe(true);
    // The first membership check of the connector probes the filter with a member nobody is.
    const calls = t.sandbox.requests.map(
      (r) => `${r.method} ${r.path.split('/').at(-1)} ${r.query.filter ?? ''}`,
    );
    expect(calls).toEqual([
      expect.stringMatching(
        new RegExp(
          `^GET Groups \\(id eq "${groupId}" or id eq "${groupId}"\\) and members eq "membership-probe-`,
        ),
      ),
      `GET Groups id eq "${groupId}" and (members eq "member.one" or members eq "${account.id}")`,
      `PATCH ${groupId} `,
      `GET Groups id eq "${groupId}" and (members eq "member.one" or members eq "${account.id}")`,
    ]);
    expect(t.sandbox.getGroup(groupId)?.members).toEqual([
      expect.objectContaining({ value: 'member.one' }),
    ]);
    await t.connector.setEnabled(account, false);
    expect(t.sandbox.getUser('member.one')?.active).toBe(false);
  });

  it('groups returned without members: membership checked with the members filter, never the group', async () => {
    const t = await withQuirks({ omitMembers: true });
    const { account, groupId } = await accountAndGroup(t);
    const granted = await runMembership(t.connector, account, 'grant', [groupId]);
    expect(granted.changes).toHaveLength(1);
    const check = t.sandbox.requests.find((r) => r.query.filter?.includes('member.one'));
    expect(check?.query).toMatchObject({
      filter: `id eq "${groupId}" and (members eq "member.one" or members eq "${account.id}")`,
      attributes: 'id,displayName',
    });
    const again = await runMembership(t.connector, account, 'grant', [groupId]);
    expect(again.ok).toBe(true);
    expect(again.changes).toEqual([]);
    expect(t.sandbox.requests.some((r) => r.method === 'GET' && r.path.endsWith(groupId))).toBe(
      false,
    );
  });

  it('no /ServiceProviderConfig: the status check falls back and says what it found', async () => {
    const t = await withQuirks({ noServiceProviderConfig: true });
    const status = await t.connector.checkStatus();
    expect(status.ok).toBe(true);
    expect(status.findings.map((f) => `${f.name}:${f.outcome}`)).toContain(
      'ServiceProviderConfig:missing',
    );
    expect(t.sandbox.requests.map((r) => r.path)).toContain('/');
  });

  it.each(['html200', 'html404'] as const)(
    'a base URL that reaches an application page (%s), not its SCIM endpoints, does not pass the status check',
    async (outsidePrefix) => {
      target = await startScimTarget({ prefix: '/api/auth/scim/v2', quirks: { outsidePrefix } });
      const connector = new ScimConnector(
        { ...target.settings, baseUrl: new URL(target.sandbox.endpoint).origin },
        { secrets: target.secrets },
      );
      try {
        const status = await connector.checkStatus();
        expect(status.ok, status.summary).toBe(false);
        expect(status.findings.map((f) => `${f.name}:${f.outcome}`)).toEqual([
          'ServiceProviderConfig:missing',
          'base URL:failed',
          'Users filter:failed',
        ]);
      } finally {
        await connector.close();
      }
    },
  );

  it("a base URL that reaches the application's 404 page: a delete fails, the account stays, nothing is taken for missing", async () => {
    target = await startScimTarget({
      prefix: '/api/auth/scim/v2',
      quirks: { outsidePrefix: 'html404' },
    });
    const account = await createdAccount(target.connector, { accountId: 'leaver.one' });
    // The application moved its SCIM service; the connector still points at the old prefix.
    const moved = new ScimConnector(
      { ...target.settings, baseUrl: new URL(target.sandbox.endpoint).origin + '/api/old' },
      { secrets: target.secrets },
    );
    try {
      const deleted = await runAccountAction(moved, account, 'delete');
      expect(deleted.ok).toBe(false);
      expect(deleted.error).toMatchObject({
        code: 'TARGET_RESPONSE_INVALID',
        status: 404,
        message: expect.stringContaining('without a SCIM error body'),
      });
      await expect(moved.findAccount('leaver.one')).rejects.toMatchObject({
        code: 'TARGET_RESPONSE_INVALID',
      });
      await expect(moved.readAccount(account)).rejects.toMatchObject({
        code: 'TARGET_RESPONSE_INVALID',
      });
      await expect(moved.readGroup('any-group')).rejects.toMatchObject({
        code: 'TARGET_RESPONSE_INVALID',
      });
    } finally {
      await moved.close();
    }
    // The truth: the leaver's account is still there; no request reached the SCIM service.
    expect(target.sandbox.getUser('leaver.one')).toBeDefined();
  });

  it('endpoints under another prefix, with the Base URL given with /scim/v2/', async () => {
    target = await startScimTarget({ prefix: '/tenant-a/scim/v2' });
    expect(target.settings.baseUrl).toMatch(/\/tenant-a$/);
    expect((await target.connector.checkStatus()).ok).toBe(true);
    expect((await target.connector.createAccount({ accountId: 'p1' })).outcome).toBe('created');
  });

  it.each([
    ['lastLogin', undefined],
    ['lastLogon', undefined],
    ['lastLoginTime', undefined],
    ['loginTime', undefined],
    [
      'urn:example:params:scim:schemas:Activity.lastSeen',
      'urn:example:params:scim:schemas:Activity.lastSeen',
    ],
  ])('a last logon under %s', async (attribute, configured) => {
    const t = await withQuirks(
      { lastLogonAttribute: attribute },
      configured === undefined ? {} : { advanced: { lastLogonAttribute: configured } },
    );
    const account = await createdAccount(t.connector, { accountId: 'll' });
    t.sandbox.setLastLogon('ll', '2026-10-01T12:00:00Z');
    expect(await t.connector.readLastLogon(account)).toMatchObject({
      status: 'found',
      value: '2026-10-01T12:00:00.000Z',
    });
  });

  it('bursts of 429 with Retry-After, waiting as told', async () => {
    const t = await withQuirks({});
    t.sandbox.injectThrottle(2, '1');
    const started = Date.now();
    expect((await t.connector.createAccount({ accountId: 't1' })).outcome).toBe('created');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_950);
    expect(t.connector.http.transport.stats.throttled).toBe(2);
  });

  it('bursts of 503 and 504', async () => {
    const t = await withQuirks({});
    t.sandbox.injectServerErrors(1, 503);
    t.sandbox.injectServerErrors(1, 504);
    expect((await t.connector.createAccount({ accountId: 's1' })).outcome).toBe('created');
    expect(t.connector.http.transport.stats.retries).toBe(2);
  });
});

describe('connector A fails with the right error on', () => {
  it('a 500: not retried, TARGET_UNAVAILABLE naming the account', async () => {
    const t = await withQuirks({});
    t.sandbox.injectServerErrors(1, 500);
    await expect(t.connector.findAccount('x1')).rejects.toMatchObject({
      code: 'TARGET_UNAVAILABLE',
      status: 500,
      object: 'x1',
    });
  });

  it('a PATCH silently ignored: MEMBERSHIP_MISMATCH naming the group', async () => {
    const t = await withQuirks({});
    const { account, groupId } = await accountAndGroup(t);
    // A grant the filter was seen to find: from then on its "not a member" is believed.
    const other = await createdAccount(t.connector, { accountId: 'member.zero' });
    expect((await runMembership(t.connector, other, 'grant', [groupId])).ok).toBe(true);
    t.sandbox.setQuirks({ ignorePatchOps: true });
    const outcome = await runMembership(t.connector, account, 'grant', [groupId]);
    expect(t.sandbox.groupIdsOf('member.one')).toEqual([]);
    expect(outcome.error).toMatchObject({
      code: 'MEMBERSHIP_MISMATCH',
      details: { missing: [{ id: groupId }] },
    });
  });

  it('a PATCH silently ignored, where nothing vouches for "not a member": could not tell, nothing journaled', async () => {
    const t = await withQuirks({ ignorePatchOps: true });
    const { account, groupId } = await accountAndGroup(t);
    const outcome = await runMembership(t.connector, account, 'grant', [groupId]);
    expect(t.sandbox.groupIdsOf('member.one')).toEqual([]);
    // The filter has not yet shown this connector a member, and the empty group lists none.
    expect(outcome.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      message: expect.stringContaining('rests on the members filter alone'),
    });
    expect(outcome.changes).toEqual([]);
  });

  it('a remove answered 200 with a capped member list that no longer shows the account: read back, not believed', async () => {
    const t = await withQuirks({});
    const { account, groupId } = await accountAndGroup(t);
    const other = await createdAccount(t.connector, { accountId: 'member.zero' });
    expect((await runMembership(t.connector, other, 'grant', [groupId])).ok).toBe(true);
    expect((await runMembership(t.connector, account, 'grant', [groupId])).ok).toBe(true);
    // A big group shows only its first member, and this server ignores the remove but
    // answers 200 with the group: the account is absent from the answer, not from the group.
    t.sandbox.setQuirks({
      ignorePatchOps: true,
      ignoredPatchAnswersResource: true,
      maxMembersShown: 1,
    });
    const revoke = await runMembership(t.connector, account, 'revoke', [groupId]);
    expect(revoke.ok).toBe(false);
    expect(revoke.error).toMatchObject({
      code: 'MEMBERSHIP_MISMATCH',
      message: expect.stringContaining(`unexpected: Team (${groupId})`),
    });
    expect(t.sandbox.getGroup(groupId)?.members).toContainEqual(
      expect.objectContaining({ value: 'member.one' }),
    );
  });

  it('member values that must be internal ids: SCIM_INVALID_VALUE naming the group, fixed by memberValue scimId', async () => {
    const t = await withQuirks({ memberValuesMustBeInternalIds: true });
    const { account, groupId } = await accountAndGroup(t);
    const outcome = await runMembership(t.connector, account, 'grant', [groupId]);
    expect(outcome.error).toMatchObject({
      code: 'SCIM_INVALID_VALUE',
      object: groupId,
      message: expect.stringContaining(`group ${groupId}`),
    });

    const byId = await startScimTarget(
      { quirks: { memberValuesMustBeInternalIds: true } },
      { memberValue: 'scimId' },
    );
    try {
      const [group] = byId.sandbox.seedGroups([{ displayName: 'Team' }]);
      const a = await createdAccount(byId.connector, { accountId: 'member.one' });
      expect((await runMembership(byId.connector, a, 'grant', [group!.id])).ok).toBe(true);
      expect(byId.sandbox.getGroup(group!.id)?.members).toEqual([
        expect.objectContaining({ value: a.id }),
      ]);
    } finally {
      await byId.close();
    }
  });

  it('a server that accepts only the value-array remove: the default fails, the setting fixes it', async () => {
    const t = await withQuirks({ memberRemoveStyle: 'valueArray' });
    const { account, groupId } = await accountAndGroup(t);
    expect((await runMembership(t.connector, account, 'grant', [groupId])).ok).toBe(true);
    const revoke = await runMembership(t.connector, account, 'revoke', [groupId]);
    expect(revoke.error).toMatchObject({ object: groupId, status: 400 });
    expect(t.sandbox.getGroup(groupId)?.members).toHaveLength(1);

    const styled = await startScimTarget(
      { quirks: { memberRemoveStyle: 'valueArray' } },
      { memberRemoveStyle: 'valueArray' },
    );
    try {
      const [group] = styled.sandbox.seedGroups([{ displayName: 'Team' }]);
      const a = await createdAccount(styled.connector, { accountId: 'm2' });
      expect((await runMembership(styled.connector, a, 'grant', [group!.id])).ok).toBe(true);
      expect((await runMembership(styled.connector, a, 'revoke', [group!.id])).ok).toBe(true);
      expect(styled.sandbox.getGroup(group!.id)?.members ?? []).toEqual([]);
      // The configured form, then the SCIM id, which the group may hold as well.
      expect(
        groupPatches(styled)
          .slice(-2)
          .map((patch) => patch.body),
      ).toMatchObject([
        { Operations: [{ op: 'remove', path: 'members', value: [{ value: 'm2' }] }] },
        { Operations: [{ op: 'remove', path: 'members', value: [{ value: a.id }] }] },
      ]);
    } finally {
      await styled.close();
    }
  });

  it('case-sensitive filters: the exact account ID is found, another case is not adopted', async () => {
    const t = await withQuirks({ caseSensitiveFilters: true });
    await t.connector.createAccount({ accountId: 'Case.User' });
    expect(await t.connector.findAccount('Case.User')).toMatchObject({ accountId: 'Case.User' });
    expect(await t.connector.findAccount('case.user')).toBeUndefined();
    await expect(t.connector.createAccount({ accountId: 'case.user' })).rejects.toMatchObject({
      code: 'SCIM_UNIQUENESS_CONFLICT',
      object: 'case.user',
    });
  });
});
