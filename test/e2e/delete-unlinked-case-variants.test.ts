import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * A delete of a SCIM account the service holds no link for, on a server that keeps userName
 * case-sensitive (scim-interop.md: RFC 7643 marks it caseExact false; some servers do not)
 * and holds several users whose names differ from the request's only in case: none of them
 * is known to be the account, so nothing is deleted and the step says it could not tell,
 * naming the users. Judged by the SCIM sandbox's truth.
 */

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
}, 60_000);
afterEach(() => {
  t.host.sandboxes!.scim.setQuirks({});
});
afterAll(async () => {
  await t?.close();
});

async function deleteRequest(accountId: string) {
  const answer = await t.api('POST', '/api/requests', {
    connector: 'scim-sandbox',
    account: { accountId },
    actions: [{ type: 'delete' }],
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return t.finished(answer.body.requestId as string);
}

async function journaled(accountId: string): Promise<string[]> {
  const journal = await t.api(
    'GET',
    `/api/journal?connector=scim-sandbox&accountId=${encodeURIComponent(accountId)}`,
  );
  return (journal.body.entries as { change: string }[]).map((e) => e.change);
}

describe("the SCIM sandbox's case-exact userNames", () => {
  it('keep users whose names differ only in case, each its own, and refuse the same name twice', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ userNamesCaseExact: true });
    const [lower, upper] = scim.seedUsers([{ userName: 'pat.lee' }, { userName: 'PAT.LEE' }]);
    expect(lower!.id).not.toBe(upper!.id);
    expect(scim.getUser('pat.lee')?.id).toBe(lower!.id);
    expect(scim.getUser('PAT.LEE')?.id).toBe(upper!.id);
    expect(scim.getUser('Pat.Lee')).toBeUndefined();
    expect(() => scim.seedUsers([{ userName: 'PAT.LEE' }])).toThrow('already exists');
  });
});

describe('a delete of an unlinked SCIM user with several case-variant matches', () => {
  it('on a server that filters userName exactly: could not tell, names the users, nothing deleted', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ userNamesCaseExact: true, caseSensitiveFilters: true });
    const seeded = scim.seedUsers([
      { userName: 'JSmith', displayName: 'Jane Smith' },
      { userName: 'JSMITH', displayName: 'John Smith' },
    ]);
    scim.clearTruthLog();

    const report = await deleteRequest('jsmith');

    expect(scim.truthLog()).toEqual([]);
    for (const user of seeded) expect(scim.getUser(user.id)).toBeDefined();
    expect(report.status).toBe('failed');
    expect(report.steps[0].changes).toEqual([]);
    const message = report.steps[0].error?.message as string;
    expect(message).toContain('2 users have that userName in another case ("JSmith", "JSMITH")');
    expect(message).toContain('could not tell');
    expect(await journaled('jsmith')).toEqual([]);
  });

  it('on a server that filters userName in any case: ambiguous, not one of them picked, nothing deleted', async () => {
    const { scim } = t.host.sandboxes!;
    // The filter answers both users for "kim.park"; neither is known to be the account.
    scim.setQuirks({ userNamesCaseExact: true });
    const seeded = scim.seedUsers([{ userName: 'Kim.Park' }, { userName: 'KIM.PARK' }]);
    scim.clearTruthLog();

    const report = await deleteRequest('kim.park');

    expect(scim.truthLog()).toEqual([]);
    for (const user of seeded) expect(scim.getUser(user.id)).toBeDefined();
    expect(report.status).toBe('failed');
    expect(report.steps[0].error?.code).toBe('ACCOUNT_AMBIGUOUS');
    expect(report.steps[0].error?.message).toContain(
      `2 users have that userName in another case ("Kim.Park" (id ${seeded[0]!.id}), "KIM.PARK" (id ${seeded[1]!.id}))`,
    );
    expect(await journaled('kim.park')).toEqual([]);
  });

  it('where one of them has exactly the name asked for: that one is deleted, the other kept', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ userNamesCaseExact: true });
    const [other, asked] = scim.seedUsers([{ userName: 'AB.Case' }, { userName: 'ab.case' }]);
    scim.clearTruthLog();

    const report = await deleteRequest('ab.case');

    expect(scim.truthLog().map((e) => `${e.change} ${e.userId}`)).toEqual([
      `account deleted ${asked!.id}`,
    ]);
    expect(scim.getUser(other!.id)).toBeDefined();
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(await journaled('ab.case')).toEqual(['account deleted']);
  });
});
