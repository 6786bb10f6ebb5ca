import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { truthChanges, truthMark } from '../support/journal-truth';
import { until } from '../support/poll-until';
import { provision, reconcile, report, runJob, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A restore is checked against the service's record when it is POSTed, and again when its
 * request runs under the account's lease: a governance request queued before the restore,
 * which holds the lease when the restore is POSTed and writes after that check, must not
 * be undone by the restore. On the SCIM sandbox and Azurite; judged by the sandbox's truth.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  await runJob(t, `/api/connectors/${SCIM}/imports`, {});
  await provision(t, {
    connector: SCIM,
    account: { accountId: 'ada', displayName: 'Ada' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
  });
  t.clock.advanceBy(5 * 60_000);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('a restore whose findings a request holding the lease makes stale', () => {
  it('skips, with the reason, what that request did, and restores the rest', async () => {
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    const admin = scimAdmin(t);
    const userId = String(sandboxes.scim.getUser('ada')?.id);
    // By hand: ada into Finance and Support, and locked.
    await admin.addMember(groups['Finance']!, 'ada');
    await admin.addMember(groups['Support']!, 'ada');
    await admin.setActive(userId, false);
    await reconcile(t, SCIM);
    const open = await report(t, SCIM, { status: 'open' });
    expect(open.map((f) => `${f.type} ${f.groupId ?? ''}`).sort()).toEqual(
      [
        `accountStateChangedOutside `,
        `memberAddedOutside ${groups['Finance']}`,
        `memberAddedOutside ${groups['Support']}`,
      ].sort(),
    );
    t.clock.advanceBy(60_000);

    // Governance approves Finance for ada and locks her; its request holds ada's lease
    // (a slow target) when the restore is POSTed.
    sandboxes.scim.setQuirks({ latencyMs: 500 });
    const since = truthMark(sandboxes.scim.truthLog());
    let restore;
    let governance: string;
    try {
      const submitted = await t.api('POST', '/api/requests', {
        connector: SCIM,
        account: { accountId: 'ada' },
        actions: [{ type: 'grant', groups: ['Finance'] }, { type: 'lock' }],
      });
      expect(submitted.status, submitted.text).toBe(202);
      governance = submitted.body.requestId as string;
      await until('the governance request to hold the lease', async () => {
        const answer = await t.api('GET', `/api/requests/${governance}`);
        return answer.body.steps?.[0]?.state === 'running' ? true : undefined;
      });
      // Checked now, the record does not assign Finance yet: every finding stands.
      restore = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
        findingIds: open.map((f) => f.findingId),
      });
    } finally {
      sandboxes.scim.setQuirks({});
    }
    expect(restore.status, restore.text).toBe(202);
    expect(restore.body.skipped).toEqual([]);
    const [started] = restore.body.restores;
    expect(started.actions).toEqual([
      {
        type: 'revoke',
        groups: expect.arrayContaining([{ id: groups['Finance'] }, { id: groups['Support'] }]),
      },
      { type: 'unlock' },
    ]);
    await t.host.driver.waitFor(requestInstanceId(governance), 60_000);
    await t.host.driver.waitFor(requestInstanceId(started.requestId), 60_000);
    const governed = await t.api('GET', `/api/requests/${governance}`);
    expect(governed.body.status, governed.text).toBe('succeeded');

    // The truth: the drift the service still stood behind undone, nothing governance did.
    expect(sandboxes.scim.groupIdsOf('ada')).toContain(groups['Finance']);
    expect(sandboxes.scim.groupIdsOf('ada')).not.toContain(groups['Support']);
    expect(sandboxes.scim.getUser(userId)?.active).toBe(false);
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toEqual([
      `ada member removed ${groups['Support']}`,
    ]);

    // The restore's result says what it skipped and why.
    const restored = await t.api('GET', `/api/requests/${started.requestId}`);
    expect(restored.body.status, restored.text).toBe('succeeded');
    const [revoke, unlock] = restored.body.steps;
    const finance = open.find((f) => f.groupId === groups['Finance'])!;
    const state = open.find((f) => f.type === 'accountStateChangedOutside')!;
    expect(revoke.state).toBe('succeeded');
    expect(revoke.changes).toEqual([
      expect.objectContaining({ change: 'member removed', groupId: groups['Support'] }),
    ]);
    expect(revoke.notices.join(' ')).toContain(
      `skipped drift finding ${finance.findingId}: the service assigns group ${groups['Finance']} to "ada" now (granted at`,
    );
    expect(unlock.state).toBe('skipped');
    expect(unlock.changes).toEqual([]);
    expect(unlock.notices.join(' ')).toContain(
      `skipped drift finding ${state.findingId}: the service locked "ada" at`,
    );
  }, 120_000);
});
