import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { GRAPH, importCatalogue, useServiceBench } from '../../support/service-bench';

/**
 * A delete of a user the service holds no link for is sent to the user's name (revision 5):
 * its 204 carries no object id, so the record remembers the name. A lagging replica that
 * still shows the deleted user (its object id) must not be taken for the account by the
 * next request. Judged by the sandbox's truth and the stored record, never by the report.
 */
const bench = useServiceBench();
beforeAll(() => importCatalogue(bench, GRAPH));
afterEach(() => {
  bench.sandboxes.graph.setReplicationDelay(0);
  bench.sandboxes.graph.setFaults(undefined);
});

const clock = () => bench.clock as VirtualClock;
const group = (name: string) => bench.sandboxes.graphGroups[name]!;

/** A user made through Graph, not by a request: no record links it. */
async function madeOutside(accountId: string): Promise<string> {
  const created = await bench.runtime.services.registry
    .get(GRAPH)!
    .createAccount({ accountId, displayName: 'Made Outside' }, 'Initial-Passw0rd!');
  expect(created.outcome).toBe('created');
  return (created as { account: { id: string } }).account.id;
}

/** Deletes an unlinked user that replicas do not show yet: Graph's delete by name. */
async function deleteByName(accountId: string, requestId: string): Promise<void> {
  const report = await bench.run({
    requestId,
    connector: GRAPH,
    account: { accountId },
    actions: [{ type: 'delete' }],
  });
  expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
  expect(report.steps[0]?.changes).toEqual([{ change: 'account deleted' }]);
  expect(bench.sandboxes.graph.userIdByUpn(accountId)).toBeUndefined();
}

describe('a user deleted by name while a lagging replica still shows it', () => {
  it('is not taken for the account a create makes next (its answer lost)', async () => {
    const accountId = 'byname.recreate@contoso.example';
    bench.sandboxes.graph.setReplicationDelay(20_000);
    const deletedId = await madeOutside(accountId);
    clock().advanceBy(5_000);
    await deleteByName(accountId, 'byname.recreate-1');
    // Replicas now show the directory as it was 20 s ago: the deleted user is still there.
    clock().advanceBy(17_000);
    bench.sandboxes.graph.setFaults({ seed: 5, lostAnswerRate: 1 });
    const again = await bench.run({
      requestId: 'byname.recreate-2',
      connector: GRAPH,
      account: { accountId, displayName: 'Again' },
      actions: [{ type: 'create' }],
    });
    bench.sandboxes.graph.setFaults(undefined);
    const madeId = bench.sandboxes.graph.userIdByUpn(accountId);
    expect(madeId).toBeDefined();
    expect(madeId).not.toBe(deletedId);
    const stored = await bench.runtime.services.accounts.get(GRAPH, accountId);
    // The record links the user the create made, never the deleted one a replica showed.
    expect(stored?.targetId).toBe(madeId);
    expect(again.status, JSON.stringify(again.steps)).toBe('succeeded');
    expect(again.steps[0]?.changes).toEqual([{ change: 'account created' }]);

    const granted = await bench.run({
      requestId: 'byname.recreate-3',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Support'] }],
    });
    expect(granted.status, JSON.stringify(granted.steps)).toBe('succeeded');
    expect(bench.sandboxes.graph.directMemberIds(group('Support'))).toContain(madeId);
  });

  it('is not taken for the account a grant right after finds by name', async () => {
    const accountId = 'byname.grant@contoso.example';
    bench.sandboxes.graph.setReplicationDelay(20_000);
    const deletedId = await madeOutside(accountId);
    clock().advanceBy(5_000);
    await deleteByName(accountId, 'byname.grant-1');
    clock().advanceBy(17_000);
    bench.sandboxes.graph.clearTruthLog();
    const granted = await bench.run({
      requestId: 'byname.grant-2',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Support'] }],
    });
    expect(bench.sandboxes.graph.truthLog()).toEqual([]);
    // No account: the request fails saying so; the record links nothing (the deleted user).
    expect(granted.status).toBe('failed');
    expect(granted.steps[0]?.error?.code).toBe('ACCOUNT_NOT_FOUND');
    const stored = await bench.runtime.services.accounts.get(GRAPH, accountId);
    expect(stored?.targetId ?? '').not.toBe(deletedId);
    expect(stored?.targetId ?? '').toBe('');
  });

  it('lets a user made under the name after the delete became visible be the account', async () => {
    const accountId = 'byname.later@contoso.example';
    bench.sandboxes.graph.setReplicationDelay(20_000);
    const deletedId = await madeOutside(accountId);
    clock().advanceBy(5_000);
    await deleteByName(accountId, 'byname.later-1');
    // A minute on, replicas show the delete; someone makes a new user under the name.
    bench.sandboxes.graph.setReplicationDelay(0);
    clock().advanceBy(60_000);
    const laterId = await madeOutside(accountId);
    expect(laterId).not.toBe(deletedId);
    const granted = await bench.run({
      requestId: 'byname.later-2',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Support'] }],
    });
    expect(granted.status, JSON.stringify(granted.steps)).toBe('succeeded');
    expect(bench.sandboxes.graph.directMemberIds(group('Support'))).toContain(laterId);
    const stored = await bench.runtime.services.accounts.get(GRAPH, accountId);
    expect(stored?.targetId).toBe(laterId);
  });
});
