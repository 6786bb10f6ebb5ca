import { TableClient, odata } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import { provision, reconcile, report, runJob, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * One account, two spellings: the SCIM connector takes `Ada` and `ada` for one account (one
 * lease, one record), and findings stored under each spelling name one account (a run that
 * stored one before the service kept an account's record under one key wrote the spelling of
 * that day's request). A restore of them is one request: two would race for the account's
 * lease, and one of them fail. A run checks the account for requests in flight once, and waits
 * for it as one account. Over HTTP on the local host, on its Azurite; judged on the SCIM
 * sandbox's truth.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;
let storage: TestStorage;

beforeAll(async () => {
  storage = await startTestStorage();
  t = await startTestHost({}, { storage: storage.connection });
  await runJob(t, `/api/connectors/${SCIM}/imports`, {});
  await provision(t, {
    connector: SCIM,
    account: { accountId: 'Ada', displayName: 'Ada' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales'] }],
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await storage?.close();
});

/**
 * Rewrites a stored finding's account ID as a run stored it before rows carried the account's
 * key and findings a claim of their subject: under the spelling of that day's request.
 */
async function spellAs(findingId: string, accountId: string): Promise<void> {
  const connection =
    storage.connection.kind === 'connectionString' ? storage.connection.connectionString : '';
  const table = TableClient.fromConnectionString(connection, 'DriftFindings', {
    allowInsecureConnection: true,
  });
  for await (const row of table.listEntities<{ claimed?: boolean }>({
    queryOptions: { filter: odata`findingId eq ${findingId}` },
  })) {
    if (row.rowKey!.startsWith('k~')) {
      await table.deleteEntity(row.partitionKey!, row.rowKey!);
      continue;
    }
    await table.deleteEntity(row.partitionKey!, row.rowKey!);
    // The row as written before: no key column, no claim.
    const before = Object.fromEntries(
      Object.entries(row).filter(
        ([name]) => !['etag', 'timestamp', 'accountKey', 'claimed'].includes(name),
      ),
    );
    await table.createEntity({
      ...before,
      partitionKey: row.partitionKey!,
      rowKey: row.rowKey!,
      accountId,
    });
  }
}

const membershipsOf = (userName: string) =>
  t.host
    .sandboxes!.scim.groupIdsOf(userName)
    .map((id) => t.host.sandboxes!.scim.getGroup(id)?.displayName)
    .sort();

describe('findings of one account under two spellings', () => {
  it('are restored by one request, which puts the target back', async () => {
    const groups = t.host.sandboxes!.scimGroups;
    const admin = scimAdmin(t);
    await admin.addMember(groups['Finance']!, 'Ada');
    await admin.removeMember(groups['Sales']!, 'Ada');
    t.clock.advanceBy(5 * 60_000);
    await reconcile(t, SCIM);
    t.clock.advanceBy(60_000);
    // The truth: one account, added to Finance and removed from Sales by hand.
    expect(membershipsOf('ada')).toEqual(['Engineering', 'Finance']);
    const found = await report(t, SCIM, { status: 'open' });
    expect(found.map((f) => [f.type, f.accountId, f.groupName]).sort()).toEqual([
      ['memberAddedOutside', 'Ada', 'Finance'],
      ['memberRemovedOutside', 'Ada', 'Sales'],
    ]);
    await spellAs(found.find((f) => f.groupName === 'Sales')!.findingId, 'ada');
    const open = await report(t, SCIM, { status: 'open' });
    expect(open.map((f) => f.accountId).sort()).toEqual(['Ada', 'ada']);

    // The finding stored under the other spelling is the linked account's: neither closed as
    // "no longer linked" nor found a second time.
    const again = await reconcile(t, SCIM);
    expect(again.closed, JSON.stringify(again)).toBe(0);
    expect(again.findings).toMatchObject({ memberAddedOutside: 1, memberRemovedOutside: 1 });
    expect((await report(t, SCIM, { status: 'open' })).map((f) => f.findingId).sort()).toEqual(
      open.map((f) => f.findingId).sort(),
    );

    const preview = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      findingIds: open.map((finding) => finding.findingId),
      mode: 'preview',
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.restores).toHaveLength(1);

    const restored = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      findingIds: open.map((finding) => finding.findingId),
    });
    expect(restored.status, restored.text).toBe(202);
    expect(restored.body.restores).toHaveLength(1);
    const [restore] = restored.body.restores as { requestId: string; findingIds: string[] }[];
    expect(restore!.findingIds.sort()).toEqual(open.map((f) => f.findingId).sort());
    await t.host.driver.waitFor(requestInstanceId(restore!.requestId), 60_000);
    const request = await t.api('GET', `/api/requests/${restore!.requestId}`);
    expect(request.body.status, JSON.stringify(request.body.steps)).toBe('succeeded');
    // The truth: back in Sales, out of Finance.
    expect(membershipsOf('ada')).toEqual(['Engineering', 'Sales']);

    // Right after the restore, the run waits for its settle window once, for one account,
    // whichever spelling its findings carry; then closes both.
    const waited = await reconcile(t, SCIM);
    expect(waited.waited, JSON.stringify(waited)).toEqual({ accounts: 1, rounds: 1 });
    expect(waited.notChecked).toEqual([]);
    expect(waited.closed, JSON.stringify(await report(t, SCIM))).toBe(2);
  }, 120_000);
});
