import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserGroupsVerdict } from '../../../src/domain/user-groups-verdict';
import { tableClient } from '../../../src/store/storage-clients';
import { TableConnectorStates } from '../../../src/store/table-connector-states';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/*
 * The verdict on a SCIM server's user `groups` attribute, written by many workers and
 * compatibility runs at once on one Azurite: the row stored keeps a connector's cut against a
 * run's "complete", and the newer verdict against an older one written late. Judged by the
 * row read back from the table.
 */
let storage: TestStorage;
let states: TableConnectorStates;

beforeAll(async () => {
  storage = await startTestStorage();
  states = new TableConnectorStates(tableClient(storage.connection, 'ConnectorStates'));
});
afterAll(() => storage.close());

const verdict = (
  kind: UserGroupsVerdict['verdict'],
  by: UserGroupsVerdict['by'],
  at: string,
): UserGroupsVerdict => ({ verdict: kind, why: `${kind} by ${by} at ${at}`, at, by });

describe("TableConnectorStates' verdict on the user's groups attribute", () => {
  it("keeps a connector's cut over a later compatibility run's complete", async () => {
    await states.recordStatusCheck('c1', {
      at: '2026-11-23T07:00:00.000Z',
      ok: true,
      summary: 'ok',
    });
    await states.recordUserGroups('c1', verdict('cut', 'connector', '2026-11-23T08:00:00.000Z'));
    await states.recordUserGroups(
      'c1',
      verdict('complete', 'compatibility run', '2026-11-23T09:00:00.000Z'),
    );
    expect(await states.readUserGroups('c1')).toMatchObject({ verdict: 'cut', by: 'connector' });
    // The other columns of the row are untouched.
    expect((await states.read(['c1'])).get('c1')?.lastStatusCheck).toBeDefined();
  });

  it('keeps the newer verdict whichever of two concurrent writes lands last', async () => {
    const older = verdict('cut', 'compatibility run', '2026-11-23T08:00:00.000Z');
    const newer = verdict('complete', 'compatibility run', '2026-11-23T09:00:00.000Z');
    await Promise.all([
      states.recordUserGroups('c2', newer),
      states.recordUserGroups('c2', older),
      states.recordReconciliation('c2', { at: '2026-11-23T07:00:00.000Z', jobId: 'j', ok: true }),
    ]);
    expect(await states.readUserGroups('c2')).toEqual(newer);
    await states.recordUserGroups('c2', older);
    expect(await states.readUserGroups('c2')).toEqual(newer);
  });
});
