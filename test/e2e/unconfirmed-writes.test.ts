import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  journalChanges,
  journalOfRequests,
  truthChanges,
  truthMark,
} from '../support/journal-truth';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * A write whose answer was lost and that no read-back confirms or refutes (Graph replicas
 * lagging beyond the 30 s window; a read-back that cannot be made) ends "could not tell".
 * The service's record must then not say the account is as before (DESIGN invariant 9): a
 * later lock or unlock reads the account before it weighs its own write, so that the journal
 * holds what the target's truth shows, no more and no less; a group a lost revoke may have
 * left is no longer recorded as assigned.
 */

const GRAPH = 'graph-sandbox';
/**
 * Replicas lagging beyond the window (graph-behaviour.md: "no maximum delay is documented"):
 * every read 55 s behind, longer than the write's retries and its 30 s read-back together.
 */
const BEYOND_WINDOW = 55_000;

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
}, 60_000);

afterAll(() => t?.close());

const graph = () => t.host.sandboxes!.graph;

async function run(requestId: string, accountId: string, actions: unknown[]) {
  const answer = await t.api('POST', '/api/requests', {
    requestId,
    connector: GRAPH,
    account: { accountId, displayName: 'Unconfirmed Writes' },
    actions,
  });
  expect(answer.status, answer.text).toBe(202);
  return t.finished(requestId);
}

/** Creates the account, then locks it with the lock's answer lost and reads lagging beyond the window. */
async function lockedUnconfirmed(name: string): Promise<string> {
  const accountId = `${name}@contoso.example`;
  graph().setReplicationDelay(0);
  const made = await run(`${name}-create`, accountId, [{ type: 'create' }]);
  expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');
  graph().setReplicationDelay(BEYOND_WINDOW);
  const since = truthMark(graph().truthLog());
  graph().setFaults({ seed: 11, lostAnswerRate: 1 });
  try {
    const lock = await run(`${name}-lock`, accountId, [{ type: 'lock' }]);
    expect(graph().faultCounts()['lost answer']).toBeGreaterThan(0);
    // The truth: the lock was applied. No read within the window showed it.
    expect(truthChanges(graph().truthLog(), since)).toEqual([`${accountId} account locked`]);
    expect(lock.status, JSON.stringify(lock.steps)).toBe('failed');
    expect(await journalOfRequests(t, [`${name}-lock`])).toEqual([]);
  } finally {
    graph().setFaults(undefined);
  }
  return accountId;
}

describe('Graph: a lock whose answer was lost and that no read within the window showed', () => {
  afterAll(() => graph().setReplicationDelay(0));

  it('leaves the record saying the state is not known, not "enabled"', async () => {
    const accountId = await lockedUnconfirmed('unconfirmed.record');
    const record = await t.host.services.accounts.get(GRAPH, accountId);
    expect(record?.enabled).toBeUndefined();
    expect(record?.enabledUnconfirmed).toBe(false);
  });

  it('a later unlock reads the account first: the truth shows the unlock, and the journal has it', async () => {
    const accountId = await lockedUnconfirmed('unconfirmed.unlock');
    const since = truthMark(graph().truthLog());
    const unlock = await run('unconfirmed.unlock-unlock', accountId, [{ type: 'unlock' }]);

    const truth = truthChanges(graph().truthLog(), since);
    expect(truth).toEqual([`${accountId} account unlocked`]);
    expect(graph().getUser(graph().userIdByUpn(accountId)!)?.accountEnabled).toBe(true);
    expect(
      journalChanges(await journalOfRequests(t, ['unconfirmed.unlock-unlock'])),
      JSON.stringify(unlock.steps),
    ).toEqual(truth);
    // The unlock's own answer settles the record.
    const record = await t.host.services.accounts.get(GRAPH, accountId);
    expect(record?.enabled).toBe(true);
    expect(record?.enabledUnconfirmed).toBeUndefined();
  });

  it('a later lock that finds the account locked already journals nothing, as the truth shows nothing', async () => {
    const accountId = await lockedUnconfirmed('unconfirmed.relock');
    const since = truthMark(graph().truthLog());
    const lock = await run('unconfirmed.relock-again', accountId, [{ type: 'lock' }]);

    expect(truthChanges(graph().truthLog(), since)).toEqual([]);
    expect(
      await journalOfRequests(t, ['unconfirmed.relock-again']),
      JSON.stringify(lock.steps),
    ).toEqual([]);
    expect(lock.steps[0].notices.join('\n')).toContain('shown applied by a read before this write');
  });
});

describe('SCIM: a revoke whose answer was lost and whose read-back could not be made', () => {
  it('leaves the group neither assigned nor unassigned in the record; the truth shows it removed', async () => {
    const SCIM = 'scim-sandbox';
    const scim = t.host.sandboxes!.scim;
    const accountId = 'unconfirmed.revoke';
    const sales = String(scim.getGroup('Sales')?.id);
    const request = async (requestId: string, actions: unknown[]) => {
      const answer = await t.api('POST', '/api/requests', {
        requestId,
        connector: SCIM,
        account: { accountId, displayName: 'Unconfirmed Revoke' },
        actions,
      });
      expect(answer.status, answer.text).toBe(202);
      return t.finished(requestId);
    };
    const made = await request('unconfirmed.revoke-make', [
      { type: 'create' },
      { type: 'grant', groups: [{ name: 'Sales' }] },
    ]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');
    expect((await t.host.services.accounts.get(SCIM, accountId))?.assignedGroups).toEqual([sales]);

    const since = truthMark(scim.truthLog());
    scim.setFaults({ seed: 7, lostAnswerRate: 1 });
    let watching = true;
    // Once the revoke is applied (and its answer lost), the target answers every call 503.
    const watch = (async () => {
      while (watching) {
        if (truthChanges(scim.truthLog(), since).length > 0) {
          scim.injectServerErrors(400, 503);
          return;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const revoke = await request('unconfirmed.revoke-revoke', [
        { type: 'revoke', groups: [{ name: 'Sales' }] },
      ]);
      watching = false;
      await watch;
      expect(revoke.status).toBe('failed');
      expect(revoke.steps[0].error.message).toContain('could not tell');
    } finally {
      watching = false;
      scim.setFaults(undefined);
      scim.clearInjected();
    }
    expect(truthChanges(scim.truthLog(), since)).toEqual([`${accountId} member removed ${sales}`]);
    expect(scim.groupIdsOf(accountId)).not.toContain(sales);
    expect(await journalOfRequests(t, ['unconfirmed.revoke-revoke'])).toEqual([]);
    // Not "assigned" (a reconciliation would call the removal drift, a restore would undo it).
    const record = await t.host.services.accounts.get(SCIM, accountId);
    expect(record?.assignedGroups).toEqual([]);
    expect(record?.unconfirmedGroups).toEqual([sales]);
  });
});

describe('SCIM: a revoke from a group whose member list the server cuts short, and no other read', () => {
  it('fails saying it could not tell, journals nothing, and leaves the group unconfirmed in the record', async () => {
    const SCIM = 'scim-sandbox';
    const scim = t.host.sandboxes!.scim;
    const accountId = 'cut.revoke';
    const sales = String(scim.getGroup('Sales')?.id);
    const request = async (requestId: string, actions: unknown[]) => {
      const answer = await t.api('POST', '/api/requests', {
        requestId,
        connector: SCIM,
        account: { accountId, displayName: 'Cut Revoke' },
        actions,
      });
      expect(answer.status, answer.text).toBe(202);
      return t.finished(requestId);
    };
    const made = await request('cut.revoke-make', [
      { type: 'create' },
      { type: 'grant', groups: [{ name: 'Sales' }] },
    ]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');
    // From now on the server refuses the members filter, shows no member of a group in its
    // lists, and does not keep the user's groups (scim-interop.md: big groups, no filter).
    scim.setQuirks({
      lastLogonAttribute: 'lastLogin',
      membersFilter: 'refused',
      maxMembersShown: 0,
    });
    const since = truthMark(scim.truthLog());
    try {
      const revoke = await request('cut.revoke-revoke', [
        { type: 'revoke', groups: [{ name: 'Sales' }] },
      ]);
      expect(revoke.status).toBe('failed');
      expect(revoke.steps[0].error).toMatchObject({
        code: 'MEMBERSHIP_READ_UNAVAILABLE',
        message: expect.stringContaining('could not tell'),
      });
    } finally {
      scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
    }
    // The truth: the removal was sent and applied; no read could show it.
    expect(truthChanges(scim.truthLog(), since)).toEqual([`${accountId} member removed ${sales}`]);
    expect(await journalOfRequests(t, ['cut.revoke-revoke'])).toEqual([]);
    const record = await t.host.services.accounts.get(SCIM, accountId);
    expect(record?.assignedGroups).toEqual([]);
    expect(record?.unconfirmedGroups).toEqual([sales]);
  });
});
