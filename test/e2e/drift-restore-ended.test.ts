import { TableClient, odata } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import { provision, reconcile, report, runJob, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A restore whose findings could not be marked, and whose request then failed (the target
 * failing, nothing put back): the same restore sent again has the same request id, so
 * nothing starts. Its answer must say so, not list it as a restore under way; sent once
 * more (its findings carry the failed request now), it starts a new one.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;
let storage: TestStorage;

beforeAll(async () => {
  storage = await startTestStorage();
  t = await startTestHost(
    {},
    {
      storage: storage.connection,
      // Requests fail as they meet the target's failures (no quarantine holding them).
      sandboxSettings: (settings) => ({
        ...settings,
        maxRetries: 0,
        quarantine: { ...settings.quarantine, enabled: false },
      }),
    },
  );
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
  await storage?.close();
});

/** Another writer of the finding's row after each time the service reads it (412s on its saves). */
function contendAfterEachRead(findingId: string): () => void {
  const connection =
    storage.connection.kind === 'connectionString' ? storage.connection.connectionString : '';
  const table = TableClient.fromConnectionString(connection, 'DriftFindings', {
    allowInsecureConnection: true,
  });
  const { drift } = t.host.services;
  const get = drift.get.bind(drift);
  drift.get = async (connector, id) => {
    const found = await get(connector, id);
    if (id === findingId) {
      for await (const row of table.listEntities({
        queryOptions: { filter: odata`findingId eq ${findingId}` },
      })) {
        await table.updateEntity({ partitionKey: row.partitionKey!, rowKey: row.rowKey! }, 'Merge');
      }
    }
    return found;
  };
  return () => {
    drift.get = get;
  };
}

describe('a restore sent again after its request failed unmarked', () => {
  it('says the request it names has ended and nothing started; sent once more, it runs anew', async () => {
    const sandboxes = t.host.sandboxes!;
    const finance = sandboxes.scimGroups['Finance']!;
    await scimAdmin(t).addMember(finance, 'ada');
    await reconcile(t, SCIM);
    const [finding] = await report(t, SCIM, { status: 'open' });
    expect(finding?.type).toBe('memberAddedOutside');
    const restore = () =>
      t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
        findingIds: [finding!.findingId],
      });

    // The target fails every call while the restore runs, and its mark cannot be saved.
    sandboxes.scim.setFaults({ seed: 7, serverErrorRate: 1 });
    const stop = contendAfterEachRead(finding!.findingId);
    let first;
    try {
      first = await restore();
      expect(first.status, first.text).toBe(202);
      expect(first.body.restores[0]).toMatchObject({ marked: false });
      await t.host.driver.waitFor(requestInstanceId(first.body.restores[0].requestId), 60_000);
    } finally {
      stop();
      sandboxes.scim.setFaults(undefined);
    }
    const firstId = first.body.restores[0].requestId as string;
    expect((await t.api('GET', `/api/requests/${firstId}`)).body.status).toBe('failed');
    // The truth: nothing was put back.
    expect(sandboxes.scim.groupIdsOf('ada')).toContain(finance);

    const again = await restore();
    expect(again.status, again.text).toBe(202);
    expect(again.body.restores[0]).toMatchObject({
      requestId: firstId,
      alreadyEnded: { status: 'failed' },
    });
    expect(again.body.restores[0].notice).toContain(
      `this restore ran before as request ${firstId}, which ended failed: nothing started now`,
    );
    // The truth again: nothing ran.
    expect(sandboxes.scim.groupIdsOf('ada')).toContain(finance);

    // As the notice says: sent once more, a new request restores it.
    const third = await restore();
    expect(third.status, third.text).toBe(202);
    const thirdId = third.body.restores[0].requestId as string;
    expect(thirdId).not.toBe(firstId);
    expect(third.body.restores[0].alreadyEnded).toBeUndefined();
    await t.host.driver.waitFor(requestInstanceId(thirdId), 60_000);
    expect(sandboxes.scim.groupIdsOf('ada')).not.toContain(finance);
  }, 120_000);
});
