import type { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftFinding } from '../../../src/domain/drift-finding';
import type { JournalEntry } from '../../../src/domain/journal-entry';
import type { AccountKeys } from '../../../src/store/account-keys';
import { tableClient } from '../../../src/store/storage-clients';
import { TableDriftFindings } from '../../../src/store/table-drift-findings';
import { TableJournalStore } from '../../../src/store/table-journal-store';
import { TableRequestIndex } from '../../../src/store/table-request-index';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { idsOf, indexEntry } from '../../support/request-index-entries';

/*
 * Finding F5, on Azurite: rows that name an account carry its connector's key beside the ID
 * as the request spelled it, and a filter by account matches the key, so every spelling finds
 * every row; rows written before the key are still found by their own spelling. The keys are
 * those of a SCIM-like connector (lower case) and a Graph-like one (lower case, a bare name
 * completed with a domain).
 */
const KEYS: AccountKeys = {
  keyOf: (connector, accountId) =>
    connector === 'entra' && !accountId.includes('@')
      ? `${accountId}@contoso.example`.toLowerCase()
      : accountId.toLowerCase(),
  connectors: () => ['hr-app', 'entra'],
};

let storage: TestStorage;
let raw: { journal: TableClient; index: TableClient; drift: TableClient };
beforeAll(async () => {
  storage = await startTestStorage();
  raw = {
    journal: tableClient(storage.connection, 'KeyedJournal'),
    index: tableClient(storage.connection, 'KeyedIndex'),
    drift: tableClient(storage.connection, 'KeyedDrift'),
  };
});
afterAll(() => storage.close());

/** A row's own columns as stored, without the service's version and time (nor `leaveOut`). */
async function columnsOf(
  client: TableClient,
  partitionKey: string,
  rowKey: string,
  leaveOut: string[] = [],
): Promise<Record<string, unknown> & { partitionKey: string; rowKey: string }> {
  const row = await client.getEntity<Record<string, unknown>>(partitionKey, rowKey);
  const metadata = ['etag', 'timestamp', 'odata.metadata', ...leaveOut];
  return {
    ...Object.fromEntries(Object.entries(row).filter(([name]) => !metadata.includes(name))),
    partitionKey,
    rowKey,
  };
}

function entry(requestId: string, connector: string, accountId: string): JournalEntry {
  return {
    key: `${requestId}:0:0`,
    connector,
    accountId,
    requestId,
    step: 0,
    change: 'account created',
    at: '2026-11-22T08:00:00.000Z',
  };
}

describe('the journal', () => {
  let journal: TableJournalStore;
  beforeAll(async () => {
    journal = new TableJournalStore(raw.journal, KEYS);
    await journal.record([
      entry('r1', 'entra', 'Ada@Contoso.example'),
      entry('r2', 'entra', 'ada'),
      entry('r3', 'hr-app', 'ADA@contoso.example'),
      entry('r4', 'hr-app', 'ada'),
    ]);
    // Written before rows carried the key.
    const old = await columnsOf(raw.journal, 'entra', rowKeyOf('r1'), ['accountKey']);
    await raw.journal.createEntity({
      ...old,
      rowKey: rowKeyOf('r0'),
      key: 'r0:0:0',
      requestId: 'r0',
      accountId: 'ADA@contoso.example',
    });
  });
  const rowKeyOf = (requestId: string) => `2026-11-22T08:00:00.000Z_${requestId}:0:0`;
  const requestsOf = async (connector: string | undefined, accountId: string) =>
    (
      await journal.query({ ...(connector === undefined ? {} : { connector }), accountId })
    ).entries.map((e) => `${e.requestId} ${e.accountId}`);

  it('finds every spelling under a connector, each entry as it was spelled, and old rows by theirs', async () => {
    for (const spelling of ['ada@contoso.example', 'ADA@CONTOSO.EXAMPLE', 'ada', 'Ada']) {
      expect(await requestsOf('entra', spelling)).toEqual(['r1 Ada@Contoso.example', 'r2 ada']);
    }
    expect(await requestsOf('entra', 'ADA@contoso.example')).toEqual([
      'r0 ADA@contoso.example',
      'r1 Ada@Contoso.example',
      'r2 ada',
    ]);
    expect(await requestsOf('hr-app', 'Ada')).toEqual(['r4 ada']);
    expect(await requestsOf('hr-app', 'ada@contoso.EXAMPLE')).toEqual(['r3 ADA@contoso.example']);
  });

  it('with no connector, matches each connector by its own key: a bare name is two accounts', async () => {
    expect(await requestsOf(undefined, 'Ada')).toEqual([
      'r1 Ada@Contoso.example',
      'r2 ada',
      'r4 ada',
    ]);
    expect(await requestsOf(undefined, 'ada@contoso.example')).toEqual([
      'r1 Ada@Contoso.example',
      'r2 ada',
      'r3 ADA@contoso.example',
    ]);
  });

  it('adds the key to the row and changes nothing else', async () => {
    expect(await columnsOf(raw.journal, 'entra', rowKeyOf('r1'))).toEqual({
      partitionKey: 'entra',
      rowKey: rowKeyOf('r1'),
      ...entry('r1', 'entra', 'Ada@Contoso.example'),
      accountKey: 'ada@contoso.example',
    });
    const [listed] = (await journal.query({ connector: 'entra', requestId: 'r1' })).entries;
    expect(listed).toEqual({
      ...entry('r1', 'entra', 'Ada@Contoso.example'),
      recordedAt: expect.any(String),
    });
  });
});

describe('the request index', () => {
  let index: TableRequestIndex;
  beforeAll(async () => {
    index = new TableRequestIndex(raw.index, KEYS);
    await index.add(indexEntry('q1', 1, { connector: 'entra', accountId: 'Bo@Contoso.example' }));
    await index.add(indexEntry('q2', 2, { connector: 'entra', accountId: 'bo' }));
    await index.add(indexEntry('q3', 3, { connector: 'hr-app', accountId: 'BO' }));
    await index.recordEnd(
      indexEntry('q2', 2, { connector: 'entra', accountId: 'bo', status: 'succeeded' }),
    );
    // Indexed before rows carried the key, under the spelling then: one ended, one pending
    // whose end is written after the upgrade (in the key's range).
    await seedUnkeyed(
      indexEntry('q0', 0, {
        connector: 'entra',
        accountId: 'BO@contoso.example',
        status: 'succeeded',
      }),
    );
    await seedUnkeyed(
      indexEntry('qp', 0.5, { connector: 'entra', accountId: 'BO@contoso.example' }),
    );
    await index.recordEnd(
      indexEntry('qp', 0.5, {
        connector: 'entra',
        accountId: 'BO@contoso.example',
        status: 'failed',
      }),
    );
  });

  async function seedUnkeyed(e: ReturnType<typeof indexEntry>): Promise<void> {
    const suffix = `${String(9_999_999_999_999 - Date.parse(e.receivedAt)).padStart(13, '0')}_${e.requestId}`;
    const row = { ...e, actions: e.actions.join(',') };
    for (const rowKey of [suffix, `c~${e.connector}~${suffix}`, `a~${e.accountId}~${suffix}`]) {
      await raw.index.createEntity({ partitionKey: 'all', rowKey, ...row });
    }
  }

  it('lists every spelling of an account of a connector, newest first, each once', async () => {
    for (const spelling of ['bo', 'BO@CONTOSO.example', 'Bo@Contoso.example']) {
      expect(idsOf(await index.query({ connector: 'entra', accountId: spelling }))).toEqual([
        'q2',
        'q1',
        'qp',
      ]);
    }
    // The old rows' own spelling reads their range too.
    const old = await index.query({ connector: 'entra', accountId: 'BO@contoso.example' });
    expect(old.entries.map((e) => [e.requestId, e.accountId, e.status])).toEqual([
      ['q2', 'bo', 'succeeded'],
      ['q1', 'Bo@Contoso.example', 'pending'],
      ['qp', 'BO@contoso.example', 'failed'],
      ['q0', 'BO@contoso.example', 'succeeded'],
    ]);
  });

  it('pages through the key range and then the old rows, each once', async () => {
    const pages: string[][] = [];
    let continuationToken: string | undefined;
    do {
      const page = await index.query({
        connector: 'entra',
        accountId: 'BO@contoso.example',
        limit: 1,
        ...(continuationToken === undefined ? {} : { continuationToken }),
      });
      pages.push(idsOf(page));
      continuationToken = page.continuationToken;
    } while (continuationToken !== undefined && pages.length < 10);
    expect(pages.flat()).toEqual(['q2', 'q1', 'qp', 'q0']);
  });

  it('with no connector, matches each connector by its own key, newest first', async () => {
    expect(idsOf(await index.query({ accountId: 'Bo' }))).toEqual(['q3', 'q2', 'q1', 'qp']);
    expect(idsOf(await index.query({ accountId: 'bo@contoso.example' }))).toEqual([
      'q2',
      'q1',
      'qp',
    ]);
  });
});

describe('the drift report', () => {
  function finding(findingId: string, accountId: string): DriftFinding {
    return {
      findingId,
      connector: 'entra',
      type: 'accountStateChangedOutside',
      accountId,
      targetId: `t-${findingId}`,
      status: 'open',
      firstSeen: '2026-11-24T08:00:00.000Z',
      lastConfirmed: '2026-11-24T08:00:00.000Z',
      firstJobId: 'job-1',
      lastJobId: 'job-1',
      evidence: ['read'],
    };
  }

  it('filters by any spelling of the account, and finds old rows by their own', async () => {
    const drift = new TableDriftFindings(raw.drift, KEYS);
    await drift.save(
      [finding('f1', 'Cy@Contoso.example'), finding('f2', 'cy')].map((f) => ({
        connector: f.connector,
        findingId: f.findingId,
        judge: () => f,
      })),
    );
    const old = await columnsOf(raw.drift, 'entra', 'o~f1', ['accountKey']);
    await raw.drift.createEntity({ ...old, rowKey: 'o~f0', findingId: 'f0', accountId: 'CY' });
    const ids = async (accountId: string) =>
      (await drift.query({ connector: 'entra', accountId })).findings.map((f) => f.findingId);
    expect(await ids('CY@contoso.EXAMPLE')).toEqual(['f1', 'f2']);
    expect(await ids('CY')).toEqual(['f0', 'f1', 'f2']);
  });
});
