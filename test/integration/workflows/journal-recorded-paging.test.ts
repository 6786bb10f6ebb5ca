import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../../src/runtime/build-services';
import { ACCOUNT_IDS_AS_GIVEN } from '../../../src/store/account-keys';
import type { JournalQuery, RecordedJournalEntry } from '../../../src/store/journal-store';
import { tableClient } from '../../../src/store/storage-clients';
import { RECORDED_SETTLE_MS, TableJournalStore } from '../../../src/store/table-journal-store';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import { journalChanges, truthChanges, truthMark } from '../../support/journal-truth';
import { until } from '../../support/poll-until';
import { SCIM, importCatalogue, useServiceBench } from '../../support/service-bench';

/*
 * Issue: a client that exports the journal as it grows (an identity team's SIEM) pages by
 * time. Since revision 3 a step's entries go with the next step's commit, written after the
 * step's own `at`: a client paging by `at` passes over them for good. Paging by the time
 * each entry was recorded (`recordedFrom` = the last answer's `recordedTo`) finds them.
 * Real orchestration on the SCIM sandbox and Azurite; judged by the sandbox's truth log.
 */
const bench = useServiceBench({ clock: 100 });
beforeAll(async () => {
  await importCatalogue(bench, SCIM);
});
const SCIM_QUIRKS = { lastLogonAttribute: 'lastLogin' };
afterEach(() => {
  bench.sandboxes.scim.setQuirks(SCIM_QUIRKS);
});

/** How long an entry may take to show, for the client's store: Azurite runs in this process. */
const SETTLE_MS = 500;

/** The client's view of the journal: the service's store, reaching up to SETTLE_MS before now. */
function clientJournal(settleMs = SETTLE_MS): TableJournalStore {
  return new TableJournalStore(
    tableClient(bench.runtime.storage, TABLES.journal),
    ACCOUNT_IDS_AS_GIVEN,
    { settleMs, now: Date.now },
  );
}

/** Every page of a query. */
async function allPages(
  journal: TableJournalStore,
  query: JournalQuery,
): Promise<{ entries: RecordedJournalEntry[]; recordedTo: string }> {
  const entries: RecordedJournalEntry[] = [];
  let page = await journal.query({ ...query, limit: 1 });
  const { recordedTo } = page;
  entries.push(...page.entries);
  while (page.continuationToken !== undefined) {
    page = await journal.query({
      ...query,
      recordedTo: recordedTo!,
      limit: 1,
      continuationToken: page.continuationToken,
    });
    entries.push(...page.entries);
  }
  return { entries, recordedTo: recordedTo! };
}

describe('a client paging the journal by record time', () => {
  it('finds a carried step’s entries, written after its page, in its next page', async () => {
    const { scim } = bench.sandboxes;
    const journal = clientJournal();
    const accountId = 'recorded.paging';
    const since = truthMark(scim.truthLog());
    const start = journal.recordedHorizon();
    // Each SCIM answer takes 0.4 s (40 s on this clock): the grant runs a while after the create.
    scim.setQuirks({ ...SCIM_QUIRKS, latencyMs: 400 });
    const requestId = await bench.submit({
      requestId: 'recorded-paging',
      connector: SCIM,
      account: { accountId, displayName: 'Recorded Paging' },
      actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }] }],
    });
    const instanceId = requestInstanceId(requestId);
    // The create's step has ended once the grant's first activity is scheduled (the create
    // is sent by the first look at the connector, revision 5).
    await until(
      'the grant to start',
      () => {
        const scheduled = bench.runtime.driver
          .history(instanceId)
          .filter((event) => event.EventType === HISTORY_EVENT.TaskScheduled)
          .map((event) => event.Name);
        const created = scheduled.indexOf(ACTIVITIES.connectorGate);
        return created >= 0 && scheduled.length > created + 1 ? scheduled : undefined;
      },
      { timeoutMs: 60_000, everyMs: 10 },
    );
    const pagedAt = new Date(bench.clock.now()).toISOString();
    const first = await allPages(journal, { connector: SCIM, accountId, recordedFrom: start });
    expect(scim.getUser(accountId)).toBeDefined();

    const report = await bench.finish(requestId, 60_000);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    // The create's entry was carried into the grant's commit: not there when the client paged.
    expect(first.entries).toEqual([]);
    const ended = Date.now();
    await until('the end to settle', () => (Date.now() > ended + SETTLE_MS ? true : undefined));

    const next = await allPages(journal, {
      connector: SCIM,
      accountId,
      recordedFrom: first.recordedTo,
    });
    const truth = truthChanges(scim.truthLog(), since);
    expect(truth).toHaveLength(2);
    expect(journalChanges(next.entries)).toEqual(truth);
    const created = next.entries.find((entry) => entry.change === 'account created');
    // Stamped before the client's page (a client paging by `at` from then would pass over
    // it), recorded after the horizon that page promised.
    expect(created!.at < pagedAt).toBe(true);
    expect(created!.recordedAt >= first.recordedTo).toBe(true);
    expect(
      (await journal.query({ connector: SCIM, accountId, from: pagedAt })).entries.map(
        (entry) => entry.change,
      ),
    ).not.toContain('account created');
    // The page after it has nothing of them again.
    const after = await allPages(journal, {
      connector: SCIM,
      accountId,
      recordedFrom: next.recordedTo,
    });
    expect(after.entries).toEqual([]);
  }, 120_000);

  it('promises no horizon later than the time a write may take to show', async () => {
    const before = Date.now();
    const page = await bench.runtime.services.journal.query({
      connector: SCIM,
      recordedFrom: '2026-01-01T00:00:00Z',
      recordedTo: '2999-01-01T00:00:00Z',
    });
    expect(Date.parse(page.recordedTo!)).toBeLessThanOrEqual(Date.now() - RECORDED_SETTLE_MS);
    expect(Date.parse(page.recordedTo!)).toBeGreaterThanOrEqual(before - RECORDED_SETTLE_MS);
  });

  it('refuses a page after the first without the first one’s horizon', async () => {
    await expect(
      clientJournal().query({
        connector: SCIM,
        recordedFrom: '2026-01-01T00:00:00Z',
        continuationToken: 'eyJ9',
      }),
    ).rejects.toMatchObject({ code: 'REQUEST_INVALID', object: 'recordedTo' });
  });
});
