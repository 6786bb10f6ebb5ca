import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
import { GRAPH, SCIM, useServiceBench } from '../../support/service-bench';

/**
 * DESIGN invariant 7 across the forms of one account's ID: the target takes "Ada" and
 * "ada" (SCIM userName, RFC 7643: case-insensitive), or "jdoe" and "jdoe@<UPN domain>"
 * (Graph), for the same account, so the service keeps one lease and one record for them.
 */
const bench = useServiceBench();

/** Two requests for one account under two IDs, each a grant in two steps, sent at once. */
async function racing(
  connector: string,
  ids: [string, string],
  groups: [[string, string], [string, string]],
) {
  const [a, b] = await Promise.all(
    ids.map((accountId, i) =>
      bench.submit({
        connector,
        account: { accountId },
        actions: groups[i]!.map((group) => ({ type: 'grant', groups: [group] })),
      }),
    ),
  );
  return Promise.all([bench.finish(a!, 60_000), bench.finish(b!, 60_000)]);
}

/** The target's member additions for the user, in commit order, as `a` or `b` by group. */
function committedOrder(
  truth: readonly { userId: string; change: string; groupId?: string; seq: number }[],
  userId: string,
  ofA: readonly string[],
): string {
  return truth
    .filter((event) => event.userId === userId && event.change === 'member added')
    .sort((x, y) => x.seq - y.seq)
    .map((event) => (ofA.includes(event.groupId ?? '') ? 'a' : 'b'))
    .join('');
}

async function linkedRecords(connector: string, targetId: string): Promise<AccountRecord[]> {
  const records: AccountRecord[] = [];
  for await (const record of bench.runtime.services.accounts.listLinked(connector)) {
    if (record.targetId === targetId) records.push(record);
  }
  return records;
}

describe('one lease and one record for the forms of an account ID (DESIGN invariant 7)', () => {
  it('runs requests for "Ada.Key" and "ada.key" on SCIM one after the other, into one record', async () => {
    const { scim, scimGroups } = bench.sandboxes;
    scim.seedUsers([{ userName: 'Ada.Key' }]);
    const userId = String(scim.getUser('Ada.Key')?.id);

    const reports = await racing(
      SCIM,
      ['Ada.Key', 'ada.key'],
      [
        ['Sales', 'Support'],
        ['Finance', 'Marketing'],
      ],
    );

    expect(reports.map((report) => report.status)).toEqual(['succeeded', 'succeeded']);
    const ofA = [scimGroups['Sales']!, scimGroups['Support']!];
    expect(['aabb', 'bbaa']).toContain(committedOrder(scim.truthLog(), userId, ofA));
    const records = await linkedRecords(SCIM, userId);
    expect(records).toHaveLength(1);
    expect(new Set(records[0]!.assignedGroups)).toEqual(
      new Set(['Sales', 'Support', 'Finance', 'Marketing'].map((name) => scimGroups[name])),
    );
    expect(await bench.runtime.services.accounts.get(SCIM, 'ADA.KEY')).toEqual(records[0]);
  });

  it('runs requests for "jdoe.key" and its UPN on Graph one after the other, into one record', async () => {
    const { graph, graphGroups } = bench.sandboxes;
    const created = await bench.run({
      connector: GRAPH,
      account: { accountId: 'jdoe.key', displayName: 'J Doe' },
      actions: [{ type: 'create' }],
    });
    expect(created.status).toBe('succeeded');
    const userId = graph.userIdByUpn('jdoe.key@contoso.example')!;
    expect(userId).toBeDefined();

    const reports = await racing(
      GRAPH,
      ['jdoe.key', 'JDoe.Key@Contoso.example'],
      [
        ['Sales', 'Support'],
        ['Finance', 'Marketing'],
      ],
    );

    expect(reports.map((report) => report.status)).toEqual(['succeeded', 'succeeded']);
    const ofA = [graphGroups['Sales']!, graphGroups['Support']!];
    expect(['aabb', 'bbaa']).toContain(committedOrder(graph.truthLog(), userId, ofA));
    const records = await linkedRecords(GRAPH, userId);
    expect(records).toHaveLength(1);
    expect(new Set(records[0]!.assignedGroups)).toEqual(
      new Set(['Sales', 'Support', 'Finance', 'Marketing'].map((name) => graphGroups[name])),
    );
  });
});
