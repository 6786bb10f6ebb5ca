import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  importCatalogues,
  provision,
  provisionDriftAccounts,
  reconcile,
  scimAdmin,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A SCIM list read that stops early (a page that ends the list before totalResults, offsets
 * that shift as users are deleted between pages) never lets the service conclude "absent" or
 * "no drift": a leaver must not keep access because an account was on no page read. Judged
 * by the SCIM sandbox's stored users and truth log.
 */
const SCIM = 'scim-sandbox';
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
    connector: SCIM,
    account: { accountId },
    actions: [{ type: 'delete' }],
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return t.finished(answer.body.requestId as string);
}

/**
 * Users such that a page of `page` users shows everyone before the leaver, who comes next
 * (userName `Leaver.<tag>`, unlinked), followed by one more user.
 */
function seedLeaver(tag: string) {
  const { scim } = t.host.sandboxes!;
  const before = scim.listUsers().length;
  scim.seedUsers([{ userName: `filler.${tag}.1` }, { userName: `filler.${tag}.2` }]);
  const [leaver] = scim.seedUsers([{ userName: `Leaver.${tag}` }]);
  scim.seedUsers([{ userName: `filler.${tag}.3` }]);
  scim.clearTruthLog();
  return { leaver: leaver!, page: before + 2 };
}

describe('a delete of an unlinked SCIM user on a list read that stops early', () => {
  it('on a list that ends before totalResults: could not tell, the user kept, nothing journaled', async () => {
    const { scim } = t.host.sandboxes!;
    const { leaver, page } = seedLeaver('cut');
    // Filters compare exactly, so only the whole list could find "leaver.cut".
    scim.setQuirks({ caseSensitiveFilters: true, maxCount: page, listEndsAfter: page });

    const report = await deleteRequest('leaver.cut');

    // The truth: the leaver's account is still there, and nothing was deleted.
    expect(scim.getUser(leaver.id)).toBeDefined();
    expect(scim.truthLog()).toEqual([]);
    expect(report.status, JSON.stringify(report)).toBe('failed');
    expect(report.steps[0].notices.join(' ')).not.toContain('nothing to delete');
    expect(report.steps[0].error?.message).toContain('could not tell');
  });

  it('on a list whose offsets shift between pages: could not tell, the user kept', async () => {
    const { scim } = t.host.sandboxes!;
    const { leaver, page } = seedLeaver('shift');
    scim.setQuirks({ caseSensitiveFilters: true, maxCount: page, listShiftsBy: 1 });

    const report = await deleteRequest('leaver.shift');

    expect(scim.getUser(leaver.id)).toBeDefined();
    expect(scim.truthLog()).toEqual([]);
    expect(report.status, JSON.stringify(report)).toBe('failed');
    expect(report.steps[0].error?.message).toContain('the list changed while it was read');
  });

  it('on a server that refuses a startIndex past the end: could not tell, nothing deleted', async () => {
    const { scim } = t.host.sandboxes!;
    const { page } = seedLeaver('refused');
    const users = scim.listUsers().length;
    scim.setQuirks({ caseSensitiveFilters: true, maxCount: page, refusesStartIndexPastEnd: true });

    // On no page: only the list's proven end could say it is absent.
    const report = await deleteRequest('gone.refused');

    expect(scim.listUsers()).toHaveLength(users);
    expect(scim.truthLog()).toEqual([]);
    expect(report.status, JSON.stringify(report)).toBe('failed');
    expect(report.steps[0].error?.message).toContain('could not tell');
    expect(report.steps[0].error?.message).toContain('refused a page past its totalResults');
  });
});

describe('reconciliation of SCIM on a list read that stops early', () => {
  it('reports the run incomplete, not "no drift", when an account was on no page read', async () => {
    await importCatalogues(t);
    await provisionDriftAccounts(t, SCIM);
    t.clock.advanceBy(5 * 60_000);
    const { scim } = t.host.sandboxes!;
    // Locked by hand: drift the run must either find or say it could not look for.
    const dee = scim.getUser('dee')!;
    await scimAdmin(t).setActive(String(dee.id), false);
    expect(scim.getUser('dee')?.active).toBe(false);
    const position = scim.listUsers().findIndex((user) => user.id === dee.id);
    // Pages of `position` users: dee is the first of the second page, which the shift hides.
    scim.setQuirks({ maxCount: position, listShiftsBy: 1 });

    const run = await reconcile(t, SCIM);

    expect(run.complete, JSON.stringify(run)).toBe(false);
    expect(run.incomplete.join('\n')).toContain('the accounts could not be read');
    expect(run.incomplete.join('\n')).toContain('the list changed while it was read');
  });

  it('reports the run incomplete, not failed, when the server refuses a startIndex past the end', async () => {
    await importCatalogues(t);
    await provisionDriftAccounts(t, SCIM);
    t.clock.advanceBy(5 * 60_000);
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ refusesStartIndexPastEnd: true });

    const run = await reconcile(t, SCIM);

    expect(run.complete, JSON.stringify(run)).toBe(false);
    expect(run.incomplete.join('\n')).toContain('the accounts could not be read');
    expect(run.incomplete.join('\n')).toContain("the list's end is not proven");
    // The truth: the server still answers every page up to its end.
    expect(scim.listUsers().length).toBeGreaterThan(0);
  });
});

describe('a lock of a SCIM account whose read answers another user', () => {
  it('is never taken for locked from the cached user’s answer: the account stays enabled, nothing journaled', async () => {
    const { scim } = t.host.sandboxes!;
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'mixed.answer', displayName: 'Mixed Answer' },
      actions: [{ type: 'create' }],
    });
    const mine = scim.getUser('mixed.answer')!;
    // A server that drops the lock, behind a proxy that answers every user read with one
    // cached user, who is locked.
    const [cached] = scim.seedUsers([{ userName: 'cached.user', active: false }]);
    scim.setQuirks({ ignorePatchOps: true, readAnswersUser: cached!.id });
    scim.clearTruthLog();

    const answer = await t.api('POST', '/api/requests', {
      connector: SCIM,
      account: { accountId: 'mixed.answer' },
      actions: [{ type: 'lock' }],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const report = await t.finished(answer.body.requestId as string);

    // The truth: the account is still enabled.
    expect(scim.getUser(String(mine.id))?.active).toBe(true);
    expect(report.status, JSON.stringify(report)).not.toBe('succeeded');
    expect(JSON.stringify(report.steps[0].changes ?? [])).not.toContain('locked');
    const journal = await t.api('GET', `/api/journal?connector=${SCIM}&accountId=mixed.answer`);
    expect((journal.body.entries as { change: string }[]).map((e) => e.change)).toEqual([
      'account created',
    ]);
  });
});
