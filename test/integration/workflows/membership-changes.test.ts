import { beforeAll, describe, expect, it } from 'vitest';
import { journalEntryKey } from '../../../src/domain/journal-entry';
import { createActivityHandlers } from '../../../src/workflows/activities';
import type { RecordStepActivityInput } from '../../../src/workflows/activities/activity-inputs';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import {
  activityCalls,
  requestActivityCalls,
  GRAPH,
  SCIM,
  importCatalogue,
  useServiceBench,
} from '../../support/service-bench';

/**
 * DESIGN invariants 1 and 2: every requested membership write is sent, only effective
 * changes reach the journal, and groups the request and the catalogue do not name are never
 * touched. Judged on the sandboxes' truth and on what the history and journal show.
 */
const bench = useServiceBench();
beforeAll(async () => {
  await importCatalogue(bench, SCIM);
  await importCatalogue(bench, GRAPH);
});

const SCIM_QUIRKS = { lastLogonAttribute: 'lastLogin' };
const accountOf = (connector: string, name: string) =>
  connector === GRAPH ? `${name}@contoso.example` : name;
const groupId = (connector: string, name: string) =>
  (connector === SCIM ? bench.sandboxes.scimGroups : bench.sandboxes.graphGroups)[name]!;
const callsOf = (requestId: string, name: string) => requestActivityCalls(bench, requestId, name);
const written = (requestId: string) =>
  callsOf(requestId, ACTIVITIES.writeMemberships).flatMap((call) => {
    const { add, remove } = call.input as { add: string[]; remove: string[] };
    return [...remove.map((id) => `-${id}`), ...add.map((id) => `+${id}`)];
  });
const journalOf = async (connector: string, accountId: string, requestId: string) =>
  (await bench.journal(connector, accountId))
    .filter((entry) => entry.requestId === requestId)
    .map((entry) => `${entry.step} ${entry.change} ${entry.groupName ?? ''}`.trim())
    .sort();

/** The account's direct groups on the target by id, from the sandbox's truth. */
function truthGroups(connector: string, accountId: string): string[] {
  if (connector === SCIM) return bench.sandboxes.scim.groupIdsOf(accountId).sort();
  const id = bench.sandboxes.graph.userIdByUpn(accountId);
  if (id === undefined) throw new Error(`no user ${accountId} on the Graph sandbox`);
  return bench.sandboxes.graph.groupIdsOf(id).sort();
}
const committed = (connector: string, accountId: string) =>
  (connector === SCIM ? bench.sandboxes.scim : bench.sandboxes.graph)
    .truthLog()
    .filter((event) => event.accountId === accountId);

async function createWith(connector: string, name: string, groups: string[]): Promise<string> {
  const accountId = accountOf(connector, name);
  const report = await bench.run({
    requestId: `${name}-${connector}-0`,
    connector,
    account: { accountId, displayName: name },
    actions: [{ type: 'create' }, { type: 'grant', groups }],
  });
  expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
  return accountId;
}

describe.each([SCIM, GRAPH])(
  'membership steps on %s: only effective changes are journaled',
  (connector) => {
    it('writes a grant of a group the account has again, and journals nothing', async () => {
      const accountId = await createWith(connector, 'held', ['Sales']);
      const before = committed(connector, accountId).length;
      const requestId = `held-${connector}-1`;

      const report = await bench.run({
        requestId,
        connector,
        account: { accountId },
        actions: [{ type: 'grant', groups: ['Sales'] }],
      });

      expect(report.status).toBe('succeeded');
      expect(report.steps[0]?.changes).toEqual([]);
      expect(report.steps[0]?.notices.join(' ')).toContain('already as requested');
      expect(written(requestId)).toEqual([`+${groupId(connector, 'Sales')}`]);
      expect(truthGroups(connector, accountId)).toEqual([groupId(connector, 'Sales')]);
      expect(committed(connector, accountId)).toHaveLength(before);
      expect(await journalOf(connector, accountId, requestId)).toEqual([]);
    });

    it('writes every group of a grant mixing held and new groups, and journals only the new', async () => {
      const accountId = await createWith(connector, 'mixed', ['Sales']);
      const requestId = `mixed-${connector}-1`;

      const report = await bench.run({
        requestId,
        connector,
        account: { accountId },
        actions: [{ type: 'grant', groups: ['Sales', 'Finance'] }],
      });

      expect(report.status).toBe('succeeded');
      expect(written(requestId).sort()).toEqual(
        [`+${groupId(connector, 'Finance')}`, `+${groupId(connector, 'Sales')}`].sort(),
      );
      expect(truthGroups(connector, accountId)).toEqual(
        [groupId(connector, 'Finance'), groupId(connector, 'Sales')].sort(),
      );
      expect(await journalOf(connector, accountId, requestId)).toEqual(['0 member added Finance']);
    });
  },
);

describe('journal entries of a step', () => {
  it('keep their keys: a recordStep run again (Durable runs activities at least once) adds nothing', async () => {
    const accountId = 'keys';
    const requestId = 'keys-1';
    await bench.run({
      requestId,
      connector: SCIM,
      account: { accountId },
      actions: [
        { type: 'create' },
        { type: 'grant', groups: ['Sales', 'Finance'] },
        { type: 'lock' },
      ],
    });
    const journal = await bench.journal(SCIM, accountId);
    expect(journal.map((entry) => entry.key).sort()).toEqual(
      [
        journalEntryKey(requestId, 0, 'account created'),
        journalEntryKey(requestId, 1, 'member added', groupId(SCIM, 'Sales')),
        journalEntryKey(requestId, 1, 'member added', groupId(SCIM, 'Finance')),
        journalEntryKey(requestId, 2, 'account locked'),
      ].sort(),
    );

    const handlers = createActivityHandlers(async () => bench.runtime.services);
    // One commit for the three steps: each carried into the next one's (revision 3).
    const recorded = callsOf(requestId, ACTIVITIES.recordStep);
    expect(
      recorded.map((call) => (call.input as RecordStepActivityInput).entries.map((e) => e.step)),
    ).toEqual([[0, 1, 1, 2]]);
    const record = await bench.runtime.services.accounts.get(SCIM, accountId);
    for (const call of recorded) {
      expect(await handlers.recordStep(call.input as never)).toMatchObject({ ok: true });
    }

    expect(await bench.journal(SCIM, accountId)).toEqual(journal);
    // The last step's record again: what the service knows of the account is unchanged.
    expect(await bench.runtime.services.accounts.get(SCIM, accountId)).toEqual(record);
  });
});

describe('setMemberships: reconciliation against the managed groups', () => {
  it('revokes managed groups outside the wanted set and never touches a group outside the catalogue', async () => {
    const accountId = await createWith(SCIM, 'set.scim', ['Sales', 'Support']);
    // Created on the server after the import: not a role of the catalogue, not the service's.
    const [legal] = bench.sandboxes.scim.seedGroups([
      { displayName: 'Legal', members: [accountId] },
    ]);
    bench.sandboxes.scim.clearRequests();
    const requestId = 'set.scim-1';

    const report = await bench.run({
      requestId,
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Support', 'Finance'] }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(truthGroups(SCIM, accountId)).toEqual(
      [groupId(SCIM, 'Finance'), groupId(SCIM, 'Support'), legal!.id].sort(),
    );
    expect(await journalOf(SCIM, accountId, requestId)).toEqual([
      '0 member added Finance',
      '0 member removed Sales',
    ]);
    expect(bench.sandboxes.scim.requests.filter((r) => r.path.includes(legal!.id))).toEqual([]);
    expect(JSON.stringify(activityCalls(bench, requestInstanceId(requestId)))).not.toContain(
      legal!.id,
    );
  });

  it('with an empty wanted set revokes every writable managed group, and only those', async () => {
    const { graph, graphDynamicGroup } = bench.sandboxes;
    const accountId = await createWith(GRAPH, 'set.empty', ['Sales', 'Finance']);
    const userId = graph.userIdByUpn(accountId)!;
    const legal = graph.addGroup({ displayName: 'Legal' }).id;
    graph.addMember(legal, userId);
    graph.addMember(graphDynamicGroup, userId);
    const requestId = 'set.empty-1';

    const report = await bench.run({
      requestId,
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: [] }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(truthGroups(GRAPH, accountId)).toEqual([graphDynamicGroup, legal].sort());
    expect(await journalOf(GRAPH, accountId, requestId)).toEqual([
      '0 member removed Finance',
      '0 member removed Sales',
    ]);
    expect(report.steps[0]?.notices.join(' ')).toContain('All Staff (dynamic)');
  });
});

describe('a membership step whose writes fail in part', () => {
  it('fails the step and still journals the change that was made', async () => {
    const accountId = await createWith(SCIM, 'partial', ['Sales']);
    const requestId = 'partial-1';
    // The server takes removals, but refuses an added member value that is not its own id.
    bench.sandboxes.scim.setQuirks({ ...SCIM_QUIRKS, memberValuesMustBeInternalIds: true });
    let report;
    try {
      report = await bench.run({
        requestId,
        connector: SCIM,
        account: { accountId },
        actions: [{ type: 'setMemberships', groups: ['Finance'] }, { type: 'lock' }],
      });
    } finally {
      bench.sandboxes.scim.setQuirks(SCIM_QUIRKS);
    }

    expect(report.steps.map((step) => step.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error?.code).toBe('SCIM_INVALID_VALUE');
    expect(truthGroups(SCIM, accountId)).toEqual([]);
    expect(committed(SCIM, accountId).at(-1)).toMatchObject({
      change: 'member removed',
      groupId: groupId(SCIM, 'Sales'),
    });
    expect(await journalOf(SCIM, accountId, requestId)).toEqual(['0 member removed Sales']);
    expect(report.steps[0]?.changes).toEqual([
      { change: 'member removed', groupId: groupId(SCIM, 'Sales'), groupName: 'Sales' },
    ]);
  });
});
