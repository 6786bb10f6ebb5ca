import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/domain/journal-entry';
import {
  journalChanges,
  journalOfRequests,
  truthChanges,
  truthMark,
} from '../support/journal-truth';
import { scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * A grant or revoke whose answer was lost, that the target applied, and that no read-back
 * showed (a read-back that cannot be made: the target answers 503 from then on): its step ends "could not tell" and journals nothing. A later request for the
 * account that finds the change in place journals it then, once, as the change of the
 * request that sent it, with a note saying what found it and when (DESIGN invariants 1, 9):
 * the journal holds exactly what the target's truth shows, however many requests find it.
 */

const GRAPH = 'graph-sandbox';
const SCIM = 'scim-sandbox';

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  for (const connector of [SCIM, GRAPH]) {
    expect((await t.importCatalogue(connector)).status).toBe('succeeded');
  }
}, 60_000);

afterAll(() => t?.close());

async function run(requestId: string, connector: string, accountId: string, actions: unknown[]) {
  const answer = await t.api('POST', '/api/requests', {
    requestId,
    connector,
    account: { accountId, displayName: 'Found Later' },
    actions,
  });
  expect(answer.status, answer.text).toBe(202);
  return t.finished(requestId);
}

type Found = JournalEntry & { foundBy?: string; foundAt?: string };

describe('Graph: a grant whose answer was lost and whose read-back could not be made', () => {
  const graph = () => t.host.sandboxes!.graph;

  it('is journaled once, as its own request, when a later request finds the member in place', async () => {
    const accountId = 'found.grant@contoso.example';
    const sales = t.host.sandboxes!.graphGroups.Sales!;
    const made = await run('found.grant-make', GRAPH, accountId, [{ type: 'create' }]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');

    const since = truthMark(graph().truthLog());
    graph().setFaults({ seed: 11, lostAnswerRate: 1 });
    let watching = true;
    // Once the grant is applied (and its answer lost), the target answers every call 503:
    // the retries and the read-back meet it, and the step cannot tell.
    const watch = (async () => {
      while (watching) {
        if (truthChanges(graph().truthLog(), since).length > 0) {
          graph().setFaults({ seed: 11, serverErrorRate: 1 });
          return;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const lost = await run('found.grant-lost', GRAPH, accountId, [
        { type: 'grant', groups: [{ name: 'Sales' }] },
      ]);
      watching = false;
      await watch;
      expect(lost.status, JSON.stringify(lost.steps)).toBe('failed');
      expect(lost.steps[0].error.message).toContain('could not tell');
    } finally {
      watching = false;
      graph().setFaults(undefined);
    }
    // The truth: the grant was applied; nothing journaled it yet.
    expect(truthChanges(graph().truthLog(), since)).toEqual([`${accountId} member added ${sales}`]);
    expect(await journalOfRequests(t, ['found.grant-lost'])).toEqual([]);

    const again = await run('found.grant-again', GRAPH, accountId, [
      { type: 'grant', groups: [{ name: 'Sales' }] },
    ]);
    expect(again.status, JSON.stringify(again.steps)).toBe('succeeded');
    // A second finder (a revoke reads the member in place before removing it).
    const revoke = await run('found.grant-revoke', GRAPH, accountId, [
      { type: 'revoke', groups: [{ name: 'Sales' }] },
    ]);
    expect(revoke.status, JSON.stringify(revoke.steps)).toBe('succeeded');

    const ids = ['found.grant-lost', 'found.grant-again', 'found.grant-revoke'];
    const truth = truthChanges(graph().truthLog(), since);
    expect(truth).toEqual(
      [`${accountId} member added ${sales}`, `${accountId} member removed ${sales}`].sort(),
    );
    const journal = (await journalOfRequests(t, ids)) as Found[];
    expect(journalChanges(journal), JSON.stringify(again.steps)).toEqual(truth);
    const added = journal.find((entry) => entry.change === 'member added')!;
    expect(added.requestId).toBe('found.grant-lost');
    expect(added.step).toBe(0);
    expect(added.foundBy).toContain('found.grant-again');
    expect(Date.parse(added.foundAt ?? '')).toBeGreaterThanOrEqual(Date.parse(added.at));
    expect(again.steps[0].notices.join('\n')).toContain('journaled as that request');
    expect((await t.host.services.accounts.get(GRAPH, accountId))?.lostWrites).toBeUndefined();
  });
});

describe('SCIM: a revoke whose answer was lost and whose read-back could not be made', () => {
  it('is journaled once, as its own request, when a later request finds the member gone', async () => {
    const scim = t.host.sandboxes!.scim;
    const accountId = 'found.revoke';
    const sales = String(scim.getGroup('Sales')?.id);
    const made = await run('found.revoke-make', SCIM, accountId, [
      { type: 'create' },
      { type: 'grant', groups: [{ name: 'Sales' }] },
    ]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');

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
      const lost = await run('found.revoke-lost', SCIM, accountId, [
        { type: 'revoke', groups: [{ name: 'Sales' }] },
      ]);
      watching = false;
      await watch;
      expect(lost.status).toBe('failed');
      expect(lost.steps[0].error.message).toContain('could not tell');
    } finally {
      watching = false;
      scim.setFaults(undefined);
      scim.clearInjected();
    }
    expect(await journalOfRequests(t, ['found.revoke-lost'])).toEqual([]);

    const again = await run('found.revoke-again', SCIM, accountId, [
      { type: 'revoke', groups: [{ name: 'Sales' }] },
    ]);
    expect(again.status, JSON.stringify(again.steps)).toBe('succeeded');
    const twice = await run('found.revoke-twice', SCIM, accountId, [
      { type: 'revoke', groups: [{ name: 'Sales' }] },
    ]);
    expect(twice.status, JSON.stringify(twice.steps)).toBe('succeeded');

    const truth = truthChanges(scim.truthLog(), since);
    expect(truth).toEqual([`${accountId} member removed ${sales}`]);
    const ids = ['found.revoke-lost', 'found.revoke-again', 'found.revoke-twice'];
    const journal = (await journalOfRequests(t, ids)) as Found[];
    expect(journalChanges(journal)).toEqual(truth);
    expect(journal[0]!.requestId).toBe('found.revoke-lost');
    expect(journal[0]!.foundBy).toContain('found.revoke-again');
    const record = await t.host.services.accounts.get(SCIM, accountId);
    expect(record?.unconfirmedGroups).toBeUndefined();
    expect(record?.lostWrites).toBeUndefined();
  });
});

describe('SCIM: a revoke whose answer was lost, that the target never applied', () => {
  it('a later read that shows it not applied settles it: a removal by hand after that is never journaled as the service', async () => {
    const scim = t.host.sandboxes!.scim;
    const accountId = 'found.never';
    const sales = String(scim.getGroup('Sales')?.id);
    const made = await run('found.never-make', SCIM, accountId, [
      { type: 'create' },
      { type: 'grant', groups: [{ name: 'Sales' }] },
    ]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');

    const since = truthMark(scim.truthLog());
    // The revoke's PATCH answers 503 before doing anything, and so does every call after it:
    // the revoke is not applied, and whether it was cannot be told (a gateway's 5xx may come
    // after the target applied a write).
    // Bursts are served in order: reads pass until the first write meets the first one.
    scim.injectServerErrors(1, 503, { writesOnly: true });
    scim.injectServerErrors(400, 503);
    try {
      const lost = await run('found.never-lost', SCIM, accountId, [
        { type: 'revoke', groups: [{ name: 'Sales' }] },
      ]);
      expect(lost.status).toBe('failed');
      expect(lost.steps[0].error.message).toContain('could not tell');
    } finally {
      scim.clearInjected();
    }
    expect(truthChanges(scim.truthLog(), since)).toEqual([]);
    expect((await t.host.services.accounts.get(SCIM, accountId))?.lostWrites).toHaveLength(1);

    // Reconciled with Sales kept: the read before shows the member, and writes nothing for it.
    const kept = await run('found.never-keep', SCIM, accountId, [
      { type: 'setMemberships', groups: [{ name: 'Sales' }] },
    ]);
    // Someone removes the member by hand; the next revoke finds it gone.
    await scimAdmin(t).removeMember(sales, accountId);
    const again = await run('found.never-again', SCIM, accountId, [
      { type: 'revoke', groups: [{ name: 'Sales' }] },
    ]);
    expect(again.status, JSON.stringify(again.steps)).toBe('succeeded');

    const ids = ['found.never-lost', 'found.never-keep', 'found.never-again'];
    const journal = journalChanges(await journalOfRequests(t, ids));
    // The truth's only change is the one by hand: none of these requests made it.
    expect(truthChanges(scim.truthLog(), since)).toEqual([`${accountId} member removed ${sales}`]);
    expect(journal, JSON.stringify([kept.steps, again.steps])).toEqual([]);
    expect(kept.steps[0].notices.join('\n')).toContain('it was not applied');
  });
});

describe('SCIM: a grant whose answer was lost, never applied, and no read of its group after it', () => {
  it('a member added by hand a day later is never journaled as the service', async () => {
    const scim = t.host.sandboxes!.scim;
    const accountId = 'found.late';
    const sales = String(scim.getGroup('Sales')?.id);
    const made = await run('found.late-make', SCIM, accountId, [{ type: 'create' }]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');

    const since = truthMark(scim.truthLog());
    // The grant's PATCH answers 503 before doing anything, and so does every call after it.
    scim.injectServerErrors(1, 503, { writesOnly: true });
    scim.injectServerErrors(400, 503);
    try {
      const lost = await run('found.late-lost', SCIM, accountId, [
        { type: 'grant', groups: [{ name: 'Sales' }] },
      ]);
      expect(lost.status).toBe('failed');
      expect(lost.steps[0].error.message).toContain('could not tell');
    } finally {
      scim.clearInjected();
    }
    expect(truthChanges(scim.truthLog(), since)).toEqual([]);
    expect((await t.host.services.accounts.get(SCIM, accountId))?.lostWrites).toHaveLength(1);

    // A day later, someone adds the member by hand; the next grant's read before finds it.
    t.clock.advanceBy(24 * 60 * 60_000);
    await scimAdmin(t).addMember(sales, accountId);
    const again = await run('found.late-again', SCIM, accountId, [
      { type: 'grant', groups: [{ name: 'Sales' }] },
    ]);
    expect(again.status, JSON.stringify(again.steps)).toBe('succeeded');

    const ids = ['found.late-lost', 'found.late-again'];
    // The truth's only change is the one by hand: neither request made it.
    expect(truthChanges(scim.truthLog(), since)).toEqual([`${accountId} member added ${sales}`]);
    expect(journalChanges(await journalOfRequests(t, ids)), JSON.stringify(again.steps)).toEqual(
      [],
    );
    expect(again.steps[0].notices.join('\n')).toContain('more than an hour after that write');
    expect((await t.host.services.accounts.get(SCIM, accountId))?.lostWrites).toBeUndefined();
  });
});

describe('Graph: a lock whose answer was lost and that no read within the window showed', () => {
  const graph = () => t.host.sandboxes!.graph;
  afterAll(() => graph().setReplicationDelay(0));

  it('is journaled once, as its own request, when a later lock finds the account locked', async () => {
    const accountId = 'found.lock@contoso.example';
    graph().setReplicationDelay(0);
    const made = await run('found.lock-make', GRAPH, accountId, [{ type: 'create' }]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');
    // Every read 55 s behind: longer than the write's retries and its 30 s read-back together.
    graph().setReplicationDelay(55_000);
    const since = truthMark(graph().truthLog());
    graph().setFaults({ seed: 11, lostAnswerRate: 1 });
    try {
      const lock = await run('found.lock-lost', GRAPH, accountId, [{ type: 'lock' }]);
      expect(graph().faultCounts()['lost answer']).toBeGreaterThan(0);
      expect(lock.status, JSON.stringify(lock.steps)).toBe('failed');
    } finally {
      graph().setFaults(undefined);
    }
    expect(truthChanges(graph().truthLog(), since)).toEqual([`${accountId} account locked`]);
    expect(await journalOfRequests(t, ['found.lock-lost'])).toEqual([]);

    const again = await run('found.lock-again', GRAPH, accountId, [{ type: 'lock' }]);
    const twice = await run('found.lock-twice', GRAPH, accountId, [{ type: 'lock' }]);
    const ids = ['found.lock-lost', 'found.lock-again', 'found.lock-twice'];
    const journal = (await journalOfRequests(t, ids)) as Found[];
    expect(journalChanges(journal), JSON.stringify([again.steps, twice.steps])).toEqual(
      truthChanges(graph().truthLog(), since),
    );
    expect(journal[0]!.requestId).toBe('found.lock-lost');
    expect(journal[0]!.foundBy).toContain('found.lock-again');
    expect(again.steps[0].notices.join('\n')).toContain('journaled as that request');
    expect((await t.host.services.accounts.get(GRAPH, accountId))?.enabled).toBe(false);
  });
});
