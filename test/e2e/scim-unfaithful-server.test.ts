import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  journalChanges,
  journalOfRequests,
  truthChanges,
  truthMark,
} from '../support/journal-truth';
import type { ScimQuirks } from '../../src/sandbox/scim';
import { reconcile, report as report_ } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * A SCIM server that says it did what it did not (scim-interop.md: "PATCH answered 200 ...
 * or 204 silently ignoring the op", filters a server silently ignores): whatever it answers,
 * the request's status and journal follow what its committed state shows (DESIGN invariants
 * 9 and 11). Every case compares the journal with the sandbox's truth log.
 */

const SCIM = 'scim-sandbox';

let t: TestHost;
const scim = () => t.host.sandboxes!.scim;

beforeAll(async () => {
  t = await startTestHost();
  expect((await t.importCatalogue(SCIM)).status).toBe('succeeded');
}, 60_000);

afterAll(() => t?.close());

afterEach(() => scim().setQuirks({}));

let requests = 0;

/** Runs one request with the server's quirks set: the report, and what the truth and journal hold. */
async function run(
  accountId: string,
  actions: unknown[],
  quirks: ScimQuirks = {},
  displayName = 'Unfaithful Server',
) {
  const requestId = `unfaithful-${++requests}`;
  const since = truthMark(scim().truthLog());
  scim().setQuirks(quirks);
  try {
    const answer = await t.api('POST', '/api/requests', {
      requestId,
      connector: SCIM,
      account: { accountId, displayName },
      actions,
    });
    expect(answer.status, answer.text).toBe(202);
    const report = await t.finished(requestId);
    return {
      report,
      truth: truthChanges(scim().truthLog(), since),
      journal: journalChanges(await journalOfRequests(t, [requestId])),
    };
  } finally {
    scim().setQuirks({});
  }
}

async function created(accountId: string): Promise<void> {
  const { report } = await run(accountId, [{ type: 'create' }]);
  expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
}

describe('a server that answers a write it did not store', () => {
  // First in the file: the connector decides how it reads memberships at its first read, and
  // a server that refuses the members filter is read whole, so its PATCH answers list members.
  it('a grant answered with the group listing the new member: failed, nothing journaled', async () => {
    await created('echo.grant');
    // A group with a member: an empty one returns no member list to read.
    const [team] = scim().seedGroups([{ displayName: 'Echo Team', members: ['someone.else'] }]);
    const { report, truth, journal } = await run(
      'echo.grant',
      [{ type: 'grant', groups: [{ id: team!.id }] }],
      { ignorePatchOps: true, ignoredPatchEchoesRequest: true, membersFilter: 'refused' },
    );
    expect(truth).toEqual([]);
    expect(scim().groupIdsOf('echo.grant')).not.toContain(team!.id);
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('failed');
    // The list that does not show the account may be cut short, and nothing else tells.
    expect(report.steps[0].error.code).toBe('MEMBERSHIP_READ_UNAVAILABLE');
  });

  it('a lock answered with `active: false`: failed, nothing journaled, the record still says enabled', async () => {
    await created('echo.lock');
    const { report, truth, journal } = await run('echo.lock', [{ type: 'lock' }], {
      ignorePatchOps: true,
      ignoredPatchEchoesRequest: true,
    });
    expect(truth).toEqual([]);
    expect(scim().getUser('echo.lock')?.active).toBe(true);
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('failed');
    expect(report.steps[0].error.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect((await t.host.services.accounts.get(SCIM, 'echo.lock'))?.enabled).not.toBe(false);
  });
});

describe('a server that answers 204 and changes nothing', () => {
  it('a lock: failed, nothing journaled, the record still says enabled', async () => {
    await created('ignored.lock');
    const { report, truth, journal } = await run('ignored.lock', [{ type: 'lock' }], {
      ignorePatchOps: true,
    });
    expect(truth).toEqual([]);
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('failed');
    expect(report.steps[0].error.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect((await t.host.services.accounts.get(SCIM, 'ignored.lock'))?.enabled).not.toBe(false);
  });

  it('an update: failed, nothing journaled', async () => {
    await created('ignored.update');
    const { report, truth, journal } = await run(
      'ignored.update',
      [{ type: 'update' }],
      { ignorePatchOps: true },
      'Renamed',
    );
    expect(truth).toEqual([]);
    expect(scim().getUser('ignored.update')?.displayName).toBe('Unfaithful Server');
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('failed');
  });

  it('a delete: failed, nothing journaled, the account still linked', async () => {
    await created('ignored.delete');
    const { report, truth, journal } = await run('ignored.delete', [{ type: 'delete' }], {
      ignoreDeletes: true,
    });
    expect(truth).toEqual([]);
    expect(scim().getUser('ignored.delete')).toBeDefined();
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('failed');
    expect(await t.host.services.accounts.get(SCIM, 'ignored.delete')).toBeDefined();
  });

  it('a delete the server makes a deactivation (Slack): failed, the lock journaled and recorded, no drift to restore', async () => {
    await created('soft.delete');
    const { report, truth, journal } = await run('soft.delete', [{ type: 'delete' }], {
      deleteDeactivates: true,
    });
    expect(truth).toEqual(['soft.delete account locked']);
    expect(scim().getUser('soft.delete')).toMatchObject({ active: false });
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('failed');
    expect(report.steps[0].error.message).toContain('only deactivated the account');
    expect(await t.host.services.accounts.get(SCIM, 'soft.delete')).toMatchObject({
      enabled: false,
    });
    // Recorded as it is, the leaver's locked account is no drift that a restore would unlock.
    await reconcile(t, SCIM);
    const findings = await report_(t, SCIM);
    expect(findings.filter((f) => f.accountId === 'soft.delete')).toEqual([]);
  });
});

describe('a server that ignores filters', () => {
  it('a delete of an account made by hand, beyond the first page of the unfiltered answer: deleted and journaled', async () => {
    scim().seedUsers([{ userName: 'by.hand', displayName: 'By Hand' }]);
    const { report, truth, journal } = await run('by.hand', [{ type: 'delete' }], {
      ignoreFilters: true,
      maxCount: 2,
    });
    expect(truth).toEqual(['by.hand account deleted']);
    expect(scim().getUser('by.hand')).toBeUndefined();
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
  });
});

describe('a server that answers a create it never stores', () => {
  it('a create and a grant: failed at the create, nothing journaled', async () => {
    const { report, truth, journal } = await run(
      'never.stored',
      [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }] }],
      { createNotStored: true },
    );
    expect(truth).toEqual([]);
    expect(scim().getUser('never.stored')).toBeUndefined();
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('failed');
    expect(report.steps[0].state).toBe('failed');
    expect(await t.host.services.accounts.get(SCIM, 'never.stored')).toBeUndefined();
  });
});
