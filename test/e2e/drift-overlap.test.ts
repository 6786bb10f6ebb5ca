import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftFinding } from '../../src/domain/drift-finding';
import { countStorageCalls } from '../bench/storage-calls';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import {
  importCatalogues,
  provisionDriftAccounts,
  reconcile,
  report,
  scimAdmin,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Passes over the drift report that overlap (a slow reconciliation and another one, a
 * restore and a reconciliation) each write a finding only over the copy they judged: one
 * that changed since is read again and judged again, so no pass reopens a closed finding,
 * shows a restored one open again or loses a newer observation. Judged on the stored
 * findings, on Azurite.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;
let storage: TestStorage;

beforeAll(async () => {
  storage = await startTestStorage();
  t = await startTestHost({}, { storage: storage.connection });
  await importCatalogues(t);
  await provisionDriftAccounts(t, SCIM);
  t.clock.advanceBy(5 * 60_000);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await storage?.close();
});

/** Every stored finding of the connector with this id: open and closed rows alike. */
async function stored(findingId: string): Promise<DriftFinding[]> {
  return (await report(t, SCIM)).filter((finding) => finding.findingId === findingId);
}

/** Runs `between` once, after the next pass has loaded the open findings and before it judges them. */
function slipIntoNextPass(between: () => Promise<void>): void {
  const { drift } = t.host.services;
  const open = drift.open.bind(drift);
  drift.open = async (connector) => {
    drift.open = open;
    const loaded = await open(connector);
    await between();
    return loaded;
  };
}

describe('drift passes that overlap', () => {
  it('a pass that loaded a finding open leaves it closed once a pass that overlapped it closed it', async () => {
    const finance = t.host.sandboxes!.scimGroups['Finance']!;
    const admin = scimAdmin(t);
    await admin.addMember(finance, 'ada');
    await reconcile(t, SCIM);
    const [found] = await report(t, SCIM, { status: 'open', accountId: 'ada' });
    expect(found?.type).toBe('memberAddedOutside');
    const id = found!.findingId;

    t.clock.advanceBy(60_000);
    let closer: Awaited<ReturnType<typeof reconcile>> | undefined;
    slipIntoNextPass(async () => {
      // The overlapping pass sees the member gone and closes the finding; then the member is
      // added again, so the slow pass's own reads show it and confirm it again.
      await admin.removeMember(finance, 'ada');
      t.clock.advanceBy(1_000);
      closer = await reconcile(t, SCIM);
      await admin.addMember(finance, 'ada');
    });
    const slow = await reconcile(t, SCIM);
    expect(closer?.closed, JSON.stringify(closer)).toBe(1);
    expect(slow.complete, JSON.stringify(slow)).toBe(true);

    // One row, closed by the overlapping pass, as it closed it.
    const rows = await stored(id);
    expect(rows.map((finding) => [finding.status, finding.closedJobId])).toEqual([
      ['closed', closer!.jobId],
    ]);
    expect(rows[0]!.lastConfirmed).toBe(found!.lastConfirmed);

    // The member is in the group again: the next run finds it as a new finding.
    t.clock.advanceBy(60_000);
    const next = await reconcile(t, SCIM);
    expect(next.found.memberAddedOutside).toBe(1);
    const open = await report(t, SCIM, { status: 'open', accountId: 'ada' });
    expect(open.map((finding) => finding.findingId)).not.toContain(id);
    expect(open).toHaveLength(1);
    await admin.removeMember(finance, 'ada');
    t.clock.advanceBy(60_000);
    expect((await reconcile(t, SCIM)).closed).toBe(1);
  }, 120_000);

  it('a pass that loaded a finding keeps the newer confirmation of a pass that overlapped it', async () => {
    const support = t.host.sandboxes!.scimGroups['Support']!;
    const admin = scimAdmin(t);
    await admin.addMember(support, 'eve');
    await reconcile(t, SCIM);
    const [found] = await report(t, SCIM, { status: 'open', accountId: 'eve' });
    const id = found!.findingId;

    // The slow pass started first; the overlapping pass, started after it, confirms the
    // finding again while the slow one is still reading; then the member is removed, and the
    // slow pass's reads no longer show it.
    t.clock.advanceBy(60_000);
    let newer: Awaited<ReturnType<typeof reconcile>> | undefined;
    slipIntoNextPass(async () => {
      t.clock.advanceBy(1_000);
      newer = await reconcile(t, SCIM);
      await admin.removeMember(support, 'eve');
    });
    const slow = await reconcile(t, SCIM);
    expect(newer?.complete, JSON.stringify(newer)).toBe(true);
    expect(slow.closed, JSON.stringify(slow)).toBe(0);

    const [row, ...others] = await stored(id);
    expect(others).toEqual([]);
    expect(row?.status).toBe('open');
    expect(row?.lastJobId).toBe(newer!.jobId);
    expect(row!.lastConfirmed > found!.lastConfirmed).toBe(true);

    // A later run, with nothing newer in its way, closes it.
    t.clock.advanceBy(60_000);
    expect((await reconcile(t, SCIM)).closed).toBe(1);
    expect((await stored(id)).map((finding) => finding.status)).toEqual(['closed']);
  }, 120_000);

  it('two runs that overlap and find the same new drift leave one open finding, announced once', async () => {
    const finance = t.host.sandboxes!.scimGroups['Finance']!;
    await scimAdmin(t).addMember(finance, 'dee');
    t.clock.advanceBy(60_000);
    // The slow run loads the open findings (none of dee's), then the other run finds dee in
    // Finance and stores it; then the slow run reads the target and finds the same drift.
    let other: Awaited<ReturnType<typeof reconcile>> | undefined;
    slipIntoNextPass(async () => {
      t.clock.advanceBy(1_000);
      other = await reconcile(t, SCIM);
    });
    const slow = await reconcile(t, SCIM);
    expect(other?.found.memberAddedOutside, JSON.stringify(other)).toBe(1);
    expect(slow.complete, JSON.stringify(slow)).toBe(true);
    expect(slow.found.memberAddedOutside ?? 0, JSON.stringify(slow)).toBe(0);

    // One open finding, the other run's; the slow run's older reads did not overwrite it.
    const open = await report(t, SCIM, { status: 'open', accountId: 'dee' });
    expect(open.map((finding) => [finding.type, finding.groupId, finding.firstJobId])).toEqual([
      ['memberAddedOutside', finance, other!.jobId],
    ]);
    expect(open[0]!.lastJobId).toBe(other!.jobId);
    const events = (await t.host.services.driftEvents.peek(32)).filter(
      (event) => event.accountId === 'dee',
    );
    expect(events.map((event) => event.findingId)).toEqual([open[0]!.findingId]);

    // A later run confirms that one finding again, and once dee leaves Finance closes it.
    t.clock.advanceBy(60_000);
    const later = await reconcile(t, SCIM);
    expect(later.found.memberAddedOutside ?? 0).toBe(0);
    expect((await report(t, SCIM, { status: 'open', accountId: 'dee' }))[0]?.lastJobId).toBe(
      later.jobId,
    );
    await scimAdmin(t).removeMember(finance, 'dee');
    t.clock.advanceBy(60_000);
    expect((await reconcile(t, SCIM)).closed).toBe(1);
    expect(await report(t, SCIM, { status: 'open', accountId: 'dee' })).toEqual([]);
  }, 120_000);

  it('a run that stored a finding and failed before announcing it announces it when retried', async () => {
    const sales = t.host.sandboxes!.scimGroups['Sales']!;
    await scimAdmin(t).addMember(sales, 'dee');
    t.clock.advanceBy(60_000);
    // The queue fails once, after the finding was stored: the activity fails and runs again.
    const events = t.host.services.driftEvents;
    const send = events.send.bind(events);
    let failed = 0;
    events.send = async (messages) => {
      events.send = send;
      failed += 1;
      throw new Error(`queue unavailable (${messages.length} messages)`);
    };
    const run = await reconcile(t, SCIM);
    expect(failed).toBe(1);
    expect(run.found.memberAddedOutside, JSON.stringify(run)).toBe(1);
    const [finding, ...others] = await report(t, SCIM, {
      status: 'open',
      accountId: 'dee',
      groupId: sales,
    });
    expect(others).toEqual([]);
    const announced = (await events.peek(32)).filter(
      (event) => event.findingId === finding!.findingId,
    );
    expect(announced).toHaveLength(1);
    await scimAdmin(t).removeMember(sales, 'dee');
    t.clock.advanceBy(60_000);
    expect((await reconcile(t, SCIM)).closed).toBe(1);
  }, 120_000);

  it('a normal pass reads the open findings once and writes them in one transaction', async () => {
    const engineering = t.host.sandboxes!.scimGroups['Engineering']!;
    const admin = scimAdmin(t);
    await admin.addMember(engineering, 'cy');
    await reconcile(t, SCIM);
    t.clock.advanceBy(60_000);
    const connectionString =
      storage.connection.kind === 'connectionString' ? storage.connection.connectionString : '';
    const calls = countStorageCalls(connectionString);
    try {
      const again = await reconcile(t, SCIM);
      expect(again.complete).toBe(true);
    } finally {
      calls.stop();
    }
    const drift = Object.entries(calls.counts.byKind).filter(([kind]) =>
      kind.includes('DriftFindings'),
    );
    // The open findings read once, and once more for the job's counts once the pass has
    // written (a tally of what is stored, whatever attempt wrote it); the confirmation
    // written in one transaction ($batch).
    expect(Object.fromEntries(drift)).toEqual({ 'table GET DriftFindings': 2 });
    expect(calls.counts.byKind['table POST $batch']).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
