import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * A lock or grant of an account the service holds no link for, on a SCIM server that keeps
 * userName case-sensitive (scim-interop.md; the sandbox's `userNamesCaseExact`) and holds
 * several users whose names differ from the request's only in case, none exactly: none of
 * them is known to be the account, so the request fails with ACCOUNT_AMBIGUOUS naming the
 * name and each user's id (never "account not found"), and nothing is done to any of them.
 * One of exactly the name is still taken, and so is the one user of the name in another
 * case. Judged by the SCIM sandbox's truth.
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

async function run(accountId: string, actions: unknown[]) {
  const answer = await t.api('POST', '/api/requests', {
    connector: 'scim-sandbox',
    account: { accountId },
    actions,
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

describe('a lock or grant meeting several case-variant users, none of exactly the name', () => {
  it.each([
    ['lock', [{ type: 'lock' }]],
    ['grant', [{ type: 'grant', groups: ['Sales'] }]],
  ])('%s: ACCOUNT_AMBIGUOUS naming the name and the ids, nothing done', async (name, actions) => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ userNamesCaseExact: true });
    const names = ['JSmith', 'JSMITH', 'jSmith'].map((n) => `${n}.${name}`);
    const seeded = scim.seedUsers(names.map((userName) => ({ userName, active: true })));
    scim.clearTruthLog();

    const report = await run(`jsmith.${name}`, actions);

    // The truth: no write reached the server; every one of them as it was.
    expect(scim.truthLog()).toEqual([]);
    for (const user of seeded) expect(scim.getUser(user.id)).toMatchObject({ active: true });
    expect(report.status).toBe('failed');
    const error = report.steps[0].error;
    expect(error?.code, JSON.stringify(report.steps)).toBe('ACCOUNT_AMBIGUOUS');
    expect(error?.message).toContain(`account "jsmith.${name}" is ambiguous`);
    for (const user of seeded) expect(error?.message).toContain(user.id);
    expect(await journaled(`jsmith.${name}`)).toEqual([]);
  });
});

describe('a lock meeting case-variant users', () => {
  it('locks the one of exactly the name, and no other', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ userNamesCaseExact: true });
    const [other, asked] = scim.seedUsers([
      { userName: 'EX.Case', active: true },
      { userName: 'ex.case', active: true },
    ]);
    scim.clearTruthLog();

    const report = await run('ex.case', [{ type: 'lock' }]);

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(scim.getUser(asked!.id)?.active).toBe(false);
    expect(scim.getUser(other!.id)?.active).toBe(true);
  });

  it('locks the one user of the name in another case', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ userNamesCaseExact: true });
    const [only] = scim.seedUsers([{ userName: 'One.Variant', active: true }]);
    scim.clearTruthLog();

    const report = await run('one.variant', [{ type: 'lock' }]);

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(scim.getUser(only!.id)?.active).toBe(false);
  });
});
