import { TableClient, odata } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import { truthChanges, truthMark } from '../support/journal-truth';
import {
  provision,
  reconcile,
  removeAfterFirstRead,
  report,
  runJob,
  scimAdmin,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A restore whose findings cannot be marked once its request started (other passes kept
 * changing them: DRIFT_FINDING_CONTENDED): the request runs and puts the target back, and
 * the API says so, with its id and a notice that the findings are not marked. Sending the
 * same restore again joins that request and marks them. On Azurite: the contention is real
 * 412s from other writes of the finding's row.
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
    account: { accountId: 'ada', displayName: 'Ada' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
  });
  t.clock.advanceBy(5 * 60_000);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await storage?.close();
});

/** Another writer of the finding's row after each time the service reads it, as long as it runs. */
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
        // A write that changes the row's version, as another reconciliation's would.
        await table.updateEntity({ partitionKey: row.partitionKey!, rowKey: row.rowKey! }, 'Merge');
      }
    }
    return found;
  };
  return () => {
    drift.get = get;
  };
}

describe('a restore whose findings cannot be marked', () => {
  it('answers the request it started, with a notice; the same restore sent again marks them', async () => {
    const sandboxes = t.host.sandboxes!;
    const finance = sandboxes.scimGroups['Finance']!;
    await scimAdmin(t).addMember(finance, 'ada');
    await reconcile(t, SCIM);
    const [finding] = await report(t, SCIM, { status: 'open' });
    expect(finding?.type).toBe('memberAddedOutside');

    const since = truthMark(sandboxes.scim.truthLog());
    const stop = contendAfterEachRead(finding!.findingId);
    const restore = () =>
      t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
        findingIds: [finding!.findingId],
      });
    let first;
    try {
      first = await restore();
    } finally {
      stop();
    }
    expect(first.status, first.text).toBe(202);
    const [started] = first.body.restores;
    expect(started).toMatchObject({ accountId: 'ada', marked: false });
    expect(started.notice).toContain('DRIFT_FINDING_CONTENDED');
    expect(started.notice).toContain(`request ${started.requestId} was started`);

    // The truth: the request the answer names ran and put the target back.
    await t.host.driver.waitFor(requestInstanceId(started.requestId), 60_000);
    expect((await t.api('GET', `/api/requests/${started.requestId}`)).body.status).toBe(
      'succeeded',
    );
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toEqual([
      `ada member removed ${finance}`,
    ]);
    const [unmarked] = await report(t, SCIM, { status: 'open' });
    expect(unmarked?.restore).toBeUndefined();

    // Sent again: it joins the request it started (nothing runs twice) and marks the finding.
    const again = await restore();
    expect(again.status, again.text).toBe(202);
    expect(again.body.restores).toEqual([
      expect.not.objectContaining({ notice: expect.anything() }),
    ]);
    expect(again.body.restores[0].marked).toBe(true);
    expect(again.body.restores[0].requestId).toBe(started.requestId);
    const [marked] = await report(t, SCIM, { status: 'open' });
    expect(marked?.restore?.requestId).toBe(started.requestId);
    expect(truthChanges(sandboxes.scim.truthLog(), since)).toHaveLength(1);
  }, 120_000);

  it('answers marked false when the finding, read back after the save, does not carry the restore', async () => {
    const sandboxes = t.host.sandboxes!;
    const sales = sandboxes.scimGroups['Sales']!;
    await scimAdmin(t).addMember(sales, 'ada');
    t.clock.advanceBy(5 * 60_000);
    await reconcile(t, SCIM);
    const finding = (await report(t, SCIM, { status: 'open' })).find(
      (one) => one.groupId === sales,
    );
    expect(finding?.type).toBe('memberAddedOutside');

    // Its row is deleted right after the restore read it (a cleanup by hand, another
    // process): the save that follows meets nothing to mark, and throws nothing.
    const stop = removeAfterFirstRead(t, storage, finding!.findingId);
    let answer;
    try {
      answer = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
        findingIds: [finding!.findingId],
      });
    } finally {
      stop();
    }
    expect(answer.status, answer.text).toBe(202);
    const [started] = answer.body.restores;
    // The truth: the drift report holds no such finding, so nothing carries the mark.
    expect((await report(t, SCIM)).map((one) => one.findingId)).not.toContain(finding!.findingId);
    expect(started).toMatchObject({ accountId: 'ada', marked: false });
    expect(started.notice).toContain(`"${finding!.findingId}" (no longer stored)`);
    expect(started.notice).toContain(`request ${started.requestId} was started`);
    await t.host.driver.waitFor(requestInstanceId(started.requestId), 60_000);
    expect(sandboxes.scim.groupIdsOf('ada')).not.toContain(sales);
  }, 120_000);
});
