import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/*
 * A SCIM server whose totalResults counts only the page it answers (scim-interop.md; the
 * sandbox's `totalResultsIsPageSize`) must not cut any list read after its first page: the
 * group catalogue import, listAccounts and the filtered lookups read the page after a full
 * one whose totalResults is what it holds, and on past it when it holds more. An honest
 * server pays that extra page only for a list of exactly one full page. Judged by the
 * sandbox's stored users and groups, and by the requests it received.
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const PAGE = 5;

/** `count` users, pages of 5; `late.user` is the 8th (second page) when there are 8 or more. */
async function directory(quirks: ScimQuirks, count = 12) {
  target = await startScimTarget({ quirks }, { pageSize: PAGE });
  const users = Array.from({ length: count }, (_, i) => ({ userName: `user.${i}` }));
  if (count > 7) users[7] = { userName: 'late.user' };
  target.sandbox.seedUsers(users);
  target.sandbox.clearRequests();
  return target;
}

async function listAll(t: ScimTarget): Promise<string[]> {
  const names: string[] = [];
  for await (const account of t.connector.listAccounts()) names.push(account.accountId);
  return names;
}

async function catalogue(t: ScimTarget): Promise<string[]> {
  const names: string[] = [];
  for await (const group of t.connector.importGroups()) names.push(group.displayName);
  return names;
}

/** The startIndex of each GET the sandbox received on `path` (Users or Groups). */
const listCalls = (t: ScimTarget, path: 'Users' | 'Groups') =>
  t.sandbox.requests
    .filter((r) => r.method === 'GET' && r.path.endsWith(`/${path}`))
    .map((r) => r.query.startIndex);

describe('on a server whose totalResults is the page size', () => {
  it('imports the whole group catalogue', async () => {
    target = await startScimTarget({ quirks: { totalResultsIsPageSize: true } }, { pageSize: 3 });
    target.sandbox.seedGroups(Array.from({ length: 7 }, (_, i) => ({ displayName: `G${i}` })));
    const truth = target.sandbox.listGroups().map((g) => g.displayName);
    expect(truth).toHaveLength(7);
    expect((await catalogue(target)).sort()).toEqual([...truth].sort());
  });

  it('lists every account', async () => {
    const t = await directory({ totalResultsIsPageSize: true });
    const truth = t.sandbox.listUsers().map((u) => u.userName);
    expect(truth).toHaveLength(12);
    expect((await listAll(t)).sort()).toEqual([...truth].sort());
  });

  it('finds an account past the first page of a server that ignores the filter', async () => {
    const t = await directory({
      totalResultsIsPageSize: true,
      ignoreFilters: true,
      maxCount: PAGE,
    });
    const truth = t.sandbox.getUser('late.user');
    expect(truth).toBeDefined();
    expect(await t.connector.findAccount('late.user')).toMatchObject({
      id: truth!.id,
      accountId: 'late.user',
    });
  });

  it('finds a group past the first page of a server that ignores the filter', async () => {
    target = await startScimTarget(
      { quirks: { totalResultsIsPageSize: true, ignoreFilters: true, maxCount: 3 } },
      { pageSize: 3 },
    );
    target.sandbox.seedGroups(Array.from({ length: 7 }, (_, i) => ({ displayName: `G${i}` })));
    const truth = target.sandbox.listGroups().find((g) => g.displayName === 'G5');
    expect(truth).toBeDefined();
    expect(await target.connector.findGroup('G5')).toMatchObject({ id: truth!.id });
  });

  it('finds the user of exactly the name past a full first page of other-case names', async () => {
    // userName eq compared in any case, names kept case-exact, pages capped at 2.
    target = await startScimTarget(
      { quirks: { totalResultsIsPageSize: true, userNamesCaseExact: true, maxCount: 2 } },
      { pageSize: 2 },
    );
    const [, , exact] = target.sandbox.seedUsers([
      { userName: 'JSmith' },
      { userName: 'JSMITH' },
      { userName: 'jsmith' },
    ]);
    expect(target.sandbox.getUser(exact!.id)?.userName).toBe('jsmith');
    expect(await target.connector.findAccount('jsmith')).toMatchObject({ id: exact!.id });
  });

  it('finds the user of exactly the name behind other-case names on a server whose default page is smaller than the one asked', async () => {
    // Pages of 2 when no count is asked; the connector's page size is 100.
    target = await startScimTarget(
      { quirks: { totalResultsIsPageSize: true, userNamesCaseExact: true, defaultCount: 2 } },
      { pageSize: 100 },
    );
    const [, , exact] = target.sandbox.seedUsers([
      { userName: 'JSmith' },
      { userName: 'JSMITH' },
      { userName: 'jsmith' },
    ]);
    expect(target.sandbox.getUser(exact!.id)?.userName).toBe('jsmith');
    expect(await target.connector.findAccount('jsmith')).toMatchObject({ id: exact!.id });
  });
});

describe('on an honest server (pages of 5)', () => {
  it.each([
    [12, ['1', '6', '11']],
    [10, ['1', '6']],
    [3, ['1']],
    // The one list an honest server's pages cannot tell from a miscounting one's.
    [5, ['1', '6']],
  ])('lists %i accounts with the GETs %j', async (count, startIndexes) => {
    const t = await directory({}, count);
    expect(await listAll(t)).toHaveLength(count);
    expect(listCalls(t, 'Users')).toEqual(startIndexes);
  });

  it('looks an account up with one GET', async () => {
    const t = await directory({});
    expect(await t.connector.findAccount('late.user')).toBeDefined();
    expect(await t.connector.findAccount('nobody.here')).toBeUndefined();
    expect(await t.connector.findAccount('LATE.USER')).toBeDefined();
    expect(listCalls(t, 'Users')).toHaveLength(3);
  });
});
