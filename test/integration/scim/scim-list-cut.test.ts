import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/*
 * A SCIM list read that stops early (an empty page, a page without `Resources`, offsets that
 * shift as users are deleted between pages) is never taken for the whole list: a list that
 * ends before `totalResults` is an invalid answer; "absent" rests only on a list counted
 * whole and unchanged while read; reconciliation's read of a changed list is refused.
 * And a read of one user that answers another is no read of it. Judged by the sandbox's
 * stored users.
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

/** 12 users, pages of 5; `late.user` is the 8th (second page). */
async function directory(quirks: ScimQuirks) {
  target = await startScimTarget({ quirks }, { pageSize: 5 });
  const users = Array.from({ length: 12 }, (_, i) => ({ userName: `user.${i}` }));
  users[7] = { userName: 'late.user' };
  target.sandbox.seedUsers(users);
  // The truth: the account exists, on the second page.
  expect(target.sandbox.getUser('late.user')).toBeDefined();
  return target;
}

async function listAll(t: ScimTarget): Promise<string[]> {
  const names: string[] = [];
  for await (const account of t.connector.listAccounts()) names.push(account.accountId);
  return names;
}

async function reconciliationAccounts(t: ScimTarget): Promise<number> {
  let read = 0;
  for await (const page of t.connector.reconciliation.readAccounts()) read += page.facts.length;
  return read;
}

describe('a SCIM user list that ends before totalResults', () => {
  it.each<[string, ScimQuirks]>([
    ['an empty page', { listEndsAfter: 5 }],
    ['a page without Resources', { listEndsAfter: 5, listEndsWithoutResources: true }],
  ])('with %s is an invalid answer naming the list', async (_name, quirks) => {
    const t = await directory(quirks);
    await expect(listAll(t)).rejects.toMatchObject({
      code: 'TARGET_RESPONSE_INVALID',
      message: expect.stringMatching(
        /connector "scim-test": accounts: the list ends early .*read 5 of 12/,
      ),
    });
    await expect(reconciliationAccounts(t)).rejects.toMatchObject({
      code: 'TARGET_RESPONSE_INVALID',
    });
  });

  it('leaves a delete of an unlinked account "could not tell", never "absent"', async () => {
    const t = await directory({ listEndsAfter: 5 });
    const absence = await t.connector.proveAbsent('late.user');
    expect(absence.outcome).toBe('untold');
    expect(JSON.stringify(absence)).toContain('read 5 of 12');
  });

  it('cuts a group catalogue short only with an error', async () => {
    target = await startScimTarget({ quirks: { listEndsAfter: 3 } }, { pageSize: 3 });
    target.sandbox.seedGroups(Array.from({ length: 7 }, (_, i) => ({ displayName: `G${i}` })));
    const names: string[] = [];
    const read = async () => {
      for await (const group of target!.connector.importGroups()) names.push(group.displayName);
    };
    await expect(read()).rejects.toThrow(/group catalogue: the list ends early.*read 3 of 7/);
  });
});

describe('a SCIM user list whose offsets shift between pages (users deleted meanwhile)', () => {
  it('gives no "absent" for the account the shift hid, and reconciliation refuses the list', async () => {
    const t = await directory({ listShiftsBy: 3 });
    // The list as read skips the 6th to 8th users: no page shows late.user.
    expect(await listAll(t)).not.toContain('late.user');
    const absence = await t.connector.proveAbsent('late.user');
    expect(absence.outcome).toBe('untold');
    expect(JSON.stringify(absence)).toContain('the list changed while it was read');
    await expect(reconciliationAccounts(t)).rejects.toThrow(
      /accounts: the list changed while it was read \(totalResults 12 on the first page, 9 on the last\)/,
    );
  });
});

describe('proveAbsent on a list it can trust', () => {
  it('says absent where every user was read and counted, found where one matches', async () => {
    const t = await directory({});
    expect((await t.connector.proveAbsent('nobody.here')).outcome).toBe('absent');
    expect(await t.connector.proveAbsent('LATE.USER')).toMatchObject({ outcome: 'found' });
    expect(await reconciliationAccounts(t)).toBe(12);
  });

  it('could not tell where the server does not say how many users it has', async () => {
    const t = await directory({ omitTotalResults: true });
    // Still read whole for every other caller.
    expect(await listAll(t)).toHaveLength(12);
    expect(await reconciliationAccounts(t)).toBe(12);
    const absence = await t.connector.proveAbsent('nobody.here');
    expect(absence.outcome).toBe('untold');
    expect(JSON.stringify(absence)).toContain('no totalResults');
  });
});

describe('a SCIM user list whose totalResults counts only the page answered', () => {
  it('gives no "absent", finds the account past the first page, and reconciliation refuses the list', async () => {
    const t = await directory({ totalResultsIsPageSize: true });
    const absence = await t.connector.proveAbsent('nobody.here');
    expect(absence.outcome).toBe('untold');
    expect(JSON.stringify(absence)).toContain('past its totalResults (5)');
    // The list is read on to its end: the account on the second page is found.
    expect(await t.connector.proveAbsent('late.user')).toMatchObject({
      outcome: 'found',
      account: { id: t.sandbox.getUser('late.user')!.id },
    });
    await expect(reconciliationAccounts(t)).rejects.toThrow(/past its totalResults \(5\)/);
  });
});

describe('a SCIM user list whose server refuses a startIndex past its end', () => {
  it('leaves "absent" untold and reconciliation incomplete, never a failure', async () => {
    const t = await directory({ refusesStartIndexPastEnd: true });
    // Still read whole for every caller that does not ask past the end.
    expect(await listAll(t)).toHaveLength(12);
    const absence = await t.connector.proveAbsent('nobody.here');
    expect(absence.outcome).toBe('untold');
    expect(JSON.stringify(absence)).toContain('refused a page past its totalResults (400)');
    expect(await t.connector.proveAbsent('LATE.USER')).toMatchObject({ outcome: 'found' });
    await expect(reconciliationAccounts(t)).rejects.toMatchObject({
      code: 'TARGET_RESPONSE_INVALID',
      message: expect.stringContaining("the list's end is not proven"),
    });
    // The truth: the server holds the 12 users read.
    expect(t.sandbox.listUsers()).toHaveLength(12);
  });
});

describe('a read of one user answered with another', () => {
  it('is an invalid answer naming both ids, never the account', async () => {
    target = await startScimTarget();
    const [other, asked] = target.sandbox.seedUsers([
      { userName: 'someone.else', active: false },
      { userName: 'asked.for', active: true },
    ]);
    target.sandbox.setQuirks({ readAnswersUser: other!.id });
    // The truth: the user asked for is there and enabled.
    expect(target.sandbox.getUser(asked!.id)?.active).toBe(true);
    const read = target.connector.readAccount({
      id: asked!.id,
      accountId: 'asked.for',
      enabled: true,
    });
    await expect(read).rejects.toMatchObject({
      code: 'TARGET_RESPONSE_INVALID',
      message: expect.stringContaining(`answered user "${other!.id}" for user "${asked!.id}"`),
    });
  });

  it("leaves the account unread in reconciliation's second read, never judged by the other user", async () => {
    target = await startScimTarget();
    const [other, asked] = target.sandbox.seedUsers([
      { userName: 'someone.else', active: false },
      { userName: 'asked.for', active: true },
    ]);
    target.sandbox.setQuirks({ readAnswersUser: other!.id });
    // The truth: the user asked for is there and enabled.
    expect(target.sandbox.getUser(asked!.id)?.active).toBe(true);
    const [recheck] = await target.connector.reconciliation.recheck([
      { targetId: asked!.id, key: asked!.id, groupIds: [], account: true },
    ]);
    expect(recheck?.enabled).toBeUndefined();
    expect(recheck?.unread).toMatch(/^TARGET_RESPONSE_INVALID: GET /);
    expect(recheck?.unread).toContain(`answered user "${other!.id}" for user "${asked!.id}"`);
  });
});
