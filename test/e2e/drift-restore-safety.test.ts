import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreRequestId } from '../../src/api/drift-restore-api';
import { driftKey, type DriftFinding } from '../../src/domain/drift-finding';
import { findingIdOf } from '../../src/store/drift-findings';
import { requestInstanceId } from '../../src/workflows/names';
import { truthChanges, truthMark } from '../support/journal-truth';
import {
  provision,
  provisionDriftAccounts,
  reconcile,
  report,
  runJob,
  scimAdmin,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Operator safety of a drift restore, on the SCIM sandbox and Azurite: a restore never undoes
 * what the service did after a finding was seen (judged by the sandbox's truth), a restore of
 * one account failing leaves the others' answered, and a filter matching more findings than
 * one restore takes is refused rather than cut short.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  await runJob(t, `/api/connectors/${SCIM}/imports`, {});
  await provisionDriftAccounts(t, SCIM);
  t.clock.advanceBy(5 * 60_000);
}, 240_000);
afterAll(async () => {
  await t?.close();
});

const restore = (body: unknown) => t.api('POST', `/api/connectors/${SCIM}/drift/restore`, body);

async function waitForAll(restores: { requestId: string }[]): Promise<void> {
  for (const one of restores) {
    await t.host.driver.waitFor(requestInstanceId(one.requestId), 60_000);
    const request = await t.api('GET', `/api/requests/${one.requestId}`);
    expect(request.body.status, request.text).toBe('succeeded');
  }
}

describe('a restore and what the service did after the finding', () => {
  it('skips, with the reason, findings a later grant, revoke or unlock made stale, and restores the rest', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    const userId = (userName: string) => String(sandboxes.scim.getUser(userName)?.id);
    const admin = scimAdmin(t);
    // A leaver: the service locks eve.
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'eve' },
      actions: [{ type: 'lock' }],
    });
    // By hand: ada and dee into Finance, bob out of Sales, eve unlocked.
    await admin.addMember(groups['Finance']!, 'ada');
    await admin.addMember(groups['Finance']!, 'dee');
    await admin.removeMember(groups['Sales']!, 'bob');
    await admin.setActive(userId('eve'), true);
    const first = await reconcile(t, SCIM);
    expect(first.found).toMatchObject({
      memberAddedOutside: 2,
      memberRemovedOutside: 1,
      accountStateChangedOutside: 1,
    });
    t.clock.advanceBy(60_000);
    // Then governance, through the service: Finance approved for ada, Sales revoked from
    // bob, eve rehired. The findings stay open until the next reconciliation.
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'ada' },
      actions: [{ type: 'grant', groups: ['Finance'] }],
    });
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'bob' },
      actions: [{ type: 'revoke', groups: ['Sales'] }],
    });
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'eve' },
      actions: [{ type: 'unlock' }],
    });
    const open = await report(t, SCIM, { status: 'open' });
    expect(open).toHaveLength(4);
    const stale = open.filter((f) => f.accountId !== 'dee');
    const since = truthMark(sandboxes.scim.truthLog());

    // The preview follows the same rule: only dee's restore is planned.
    const preview = await restore({ filter: {}, mode: 'preview' });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.restores.map((r: { accountId: string }) => r.accountId)).toEqual(['dee']);
    expect(preview.body.skipped.map((s: { findingId: string }) => s.findingId).sort()).toEqual(
      stale.map((f) => f.findingId).sort(),
    );

    const answer = await restore({ filter: {} });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.restores.map((r: { accountId: string }) => r.accountId)).toEqual(['dee']);
    expect(answer.body.failed).toEqual([]);
    const reasons = Object.fromEntries(
      answer.body.skipped.map((s: { findingId: string; reason: string }) => [
        s.findingId,
        s.reason,
      ]),
    );
    const reasonOf = (type: DriftFinding['type']) =>
      reasons[stale.find((f) => f.type === type)!.findingId];
    expect(reasonOf('memberAddedOutside')).toContain(
      `the service assigns group ${groups['Finance']} to "ada" now (granted at`,
    );
    expect(reasonOf('memberRemovedOutside')).toContain(
      `the service no longer assigns group ${groups['Sales']} to "bob" (revoked at`,
    );
    expect(reasonOf('accountStateChangedOutside')).toContain('the service unlocked "eve" at');
    await waitForAll(answer.body.restores);

    // The truth: dee's drift undone, and nothing governance did since.
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toEqual([
      `dee member removed ${groups['Finance']}`,
    ]);
    expect(sandboxes.scim.groupIdsOf('ada')).toContain(groups['Finance']);
    expect(sandboxes.scim.groupIdsOf('bob')).not.toContain(groups['Sales']);
    expect(sandboxes.scim.getUser('eve')?.active).toBe(true);
    // The stale findings stay open and unmarked, for the next reconciliation to close.
    for (const finding of await report(t, SCIM, { status: 'open' })) {
      if (finding.accountId !== 'dee') expect(finding.restore).toBeUndefined();
    }
  }, 240_000);
});

describe('a restore that fails for one account', () => {
  it('answers the restores that started beside the account that failed', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    const admin = scimAdmin(t);
    t.clock.advanceBy(60_000);
    // The findings of the test before close; two new ones open.
    await admin.addMember(groups['Support']!, 'ada');
    await admin.addMember(groups['Engineering']!, 'cy');
    await reconcile(t, SCIM);
    const open = await report(t, SCIM, { status: 'open' });
    expect(open.map((f) => `${f.type} ${f.accountId}`).sort()).toEqual([
      'memberAddedOutside ada',
      'memberAddedOutside cy',
    ]);
    const cys = open.find((f) => f.accountId === 'cy')!;
    // Another request already holds the id cy's restore takes: cy's restore conflicts (409).
    const taken = restoreRequestId(
      SCIM,
      { accountId: 'cy', actions: [], findingIds: [cys.findingId] },
      [cys],
    );
    await provision(t, {
      requestId: taken,
      connector: SCIM,
      account: { accountId: 'cy' },
      actions: [{ type: 'grant', groups: ['Support'] }],
    });
    const since = truthMark(sandboxes.scim.truthLog());

    // Alone, nothing starts: the conflict's status, with the account's failure.
    const alone = await restore({ findingIds: [cys.findingId] });
    expect(alone.status, alone.text).toBe(409);
    expect(alone.body.restores).toEqual([]);
    expect(alone.body.failed).toEqual([
      expect.objectContaining({
        accountId: 'cy',
        findingIds: [cys.findingId],
        error: expect.objectContaining({ code: 'REQUEST_CONFLICT' }),
      }),
    ]);

    const answer = await restore({ filter: { type: 'memberAddedOutside' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.restores.map((r: { accountId: string }) => r.accountId)).toEqual(['ada']);
    expect(answer.body.failed).toEqual([
      expect.objectContaining({
        accountId: 'cy',
        error: expect.objectContaining({ code: 'REQUEST_CONFLICT' }),
      }),
    ]);
    await waitForAll(answer.body.restores);
    // The truth: ada's restore ran, cy's did not.
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toEqual([
      `ada member removed ${groups['Support']}`,
    ]);
    expect(sandboxes.scim.groupIdsOf('cy')).toContain(groups['Engineering']);
    // The stored rows: ada's finding carries its restore, cy's none.
    const after = await report(t, SCIM, { status: 'open' });
    expect(after.find((f) => f.accountId === 'ada')?.restore?.requestId).toBe(
      answer.body.restores[0].requestId,
    );
    expect(after.find((f) => f.accountId === 'cy')?.restore).toBeUndefined();
  }, 240_000);
  it('answers the restores that started when starting another account fails (storage failing)', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    const admin = scimAdmin(t);
    t.clock.advanceBy(60_000);
    await admin.addMember(groups['Sales']!, 'dee');
    await admin.addMember(groups['Support']!, 'eve');
    await reconcile(t, SCIM);
    const open = await report(t, SCIM, { status: 'open', type: 'memberAddedOutside' });
    const chosen = open.filter((f) => f.accountId === 'dee' || f.accountId === 'eve');
    expect(chosen).toHaveLength(2);
    const since = truthMark(sandboxes.scim.truthLog());
    // The task hub fails to take eve's request, as a storage failure would.
    const driver = t.host.driver;
    const startNew = driver.startNew.bind(driver);
    driver.startNew = async (name, instanceId, input) => {
      if ((input as { account?: { accountId?: string } }).account?.accountId === 'eve') {
        throw new Error('task hub storage unavailable');
      }
      return startNew(name, instanceId, input);
    };
    let answer;
    try {
      answer = await restore({ findingIds: chosen.map((f) => f.findingId) });
    } finally {
      driver.startNew = startNew;
    }
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.restores.map((r: { accountId: string }) => r.accountId)).toEqual(['dee']);
    expect(answer.body.failed).toEqual([
      expect.objectContaining({
        accountId: 'eve',
        error: expect.objectContaining({ code: 'INTERNAL_ERROR' }),
      }),
    ]);
    // Nothing of the cause is said to the caller.
    expect(answer.text).not.toContain('task hub storage unavailable');
    await waitForAll(answer.body.restores);
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toEqual([
      `dee member removed ${groups['Sales']}`,
    ]);
    expect(sandboxes.scim.groupIdsOf('eve')).toContain(groups['Support']);
    const eves = (await report(t, SCIM, { status: 'open' })).find((f) => f.accountId === 'eve');
    expect(eves?.restore).toBeUndefined();
  }, 240_000);
  it('answers a started restore as started when marking its findings fails unexpectedly', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    const eves = (await report(t, SCIM, { status: 'open' })).find((f) => f.accountId === 'eve')!;
    const since = truthMark(sandboxes.scim.truthLog());
    const { drift } = t.host.services;
    const save = drift.save.bind(drift);
    drift.save = async () => {
      throw new Error('table storage answered something unexpected');
    };
    let answer;
    try {
      answer = await restore({ findingIds: [eves.findingId] });
    } finally {
      drift.save = save;
    }
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.failed).toEqual([]);
    const [started] = answer.body.restores;
    expect(started).toMatchObject({ accountId: 'eve', marked: false });
    expect(started.notice).toContain(`request ${started.requestId} was started and runs`);
    expect(answer.text).not.toContain('table storage answered');
    await waitForAll(answer.body.restores);
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toEqual([
      `eve member removed ${groups['Support']}`,
    ]);
  }, 240_000);
});

describe('a filter restore that matches more findings than one restore takes', () => {
  /** Open findings of accounts the service does not link, stored as a reconciliation would. */
  async function seed(from: number, to: number): Promise<void> {
    const at = new Date(t.clock.now()).toISOString();
    const changes = [];
    for (let i = from; i < to; i += 1) {
      const subject = {
        type: 'memberRemovedOutside' as const,
        accountId: `seeded${i}`,
        targetId: `seeded-target-${i}`,
        groupId: 'seeded-group',
      };
      const finding: DriftFinding = {
        ...subject,
        findingId: findingIdOf(at, driftKey(subject)),
        connector: SCIM,
        status: 'open',
        firstSeen: at,
        lastConfirmed: at,
        firstJobId: 'seed',
        lastJobId: 'seed',
        evidence: ['seeded'],
      };
      changes.push({ connector: SCIM, findingId: finding.findingId, judge: () => finding });
    }
    await t.host.services.drift.save(changes);
  }

  it('takes 500 and refuses 501 with a 400 that says to narrow the filter, starting nothing', async () => {
    await seed(0, 500);
    const filter = { groupId: 'seeded-group' };
    const fits = await restore({ filter });
    expect(fits.status, fits.text).toBe(202);
    // None of them is linked: each is skipped with its reason, none silently left out.
    expect(fits.body.skipped).toHaveLength(500);

    await seed(500, 501);
    const tooMany = await restore({ filter });
    expect(tooMany.status, tooMany.text).toBe(400);
    expect(tooMany.body.error.code).toBe('REQUEST_INVALID');
    expect(tooMany.body.error.message).toContain('matches more than 500 open findings');
    expect(tooMany.body.error.message).toContain('narrow it');
    const stored = await report(t, SCIM, { groupId: 'seeded-group', status: 'open' });
    expect(stored).toHaveLength(501);
    expect(stored.filter((f) => f.restore !== undefined)).toEqual([]);
  }, 240_000);
});
