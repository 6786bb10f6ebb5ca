import { describe, expect, it } from 'vitest';
import type {
  AppliedMembershipChange,
  Connector,
  ConnectorCapabilities,
  MembershipRead,
} from '../../../src/connectors/connector';
import { changeMemberships, type Clock } from '../../../src/connectors/membership-change';
import type { TargetAccount } from '../../../src/domain/account';
import type { MembershipPlan } from '../../../src/domain/membership-plan';

/** A virtual clock: sleeping advances time at once. */
function virtualClock(): Clock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

/**
 * The in-memory target the runner drives: writes land at once but become visible to reads
 * only `visibleAfterMs` later on the shared clock, like Graph's replication.
 */
function memoryTarget(
  clock: Clock,
  options: {
    groups: string[];
    visibleAfterMs?: number;
    capabilities?: Partial<ConnectorCapabilities>;
    dropWrites?: string[];
  },
) {
  const committed = new Set(options.groups);
  let visible = new Set(options.groups);
  let visibleAt = 0;
  const reads: number[] = [];
  const writes: string[] = [];
  const connector = {
    name: 'memory',
    kind: 'graph',
    capabilities: {
      membershipVisibilityWindowMs: 30_000,
      membershipReadScope: 'all',
      membershipWriteBatchSize: 20,
      ...options.capabilities,
    },
    async readMemberships(
      _account: TargetAccount,
      scope: readonly string[],
    ): Promise<MembershipRead> {
      reads.push(clock.now());
      if (clock.now() >= visibleAt) visible = new Set(committed);
      const all = [...visible];
      const groupIds =
        connector.capabilities.membershipReadScope === 'named'
          ? all.filter((g) => scope.includes(g))
          : all;
      return {
        groupIds,
        names: Object.fromEntries(all.map((g) => [g, `Group ${g}`])),
        notices: [],
      };
    },
    async applyMembershipPlan(
      _a: TargetAccount,
      plan: MembershipPlan,
      names: Record<string, string>,
    ) {
      const changes: AppliedMembershipChange[] = [];
      for (const id of plan.remove) {
        writes.push(`-${id}`);
        if (!options.dropWrites?.includes(id)) committed.delete(id);
        changes.push({ groupId: id, groupName: names[id] ?? id, change: 'removed' });
      }
      for (const id of plan.add) {
        writes.push(`+${id}`);
        if (!options.dropWrites?.includes(id)) committed.add(id);
        changes.push({ groupId: id, groupName: names[id] ?? `Group ${id}`, change: 'added' });
      }
      visibleAt = clock.now() + (options.visibleAfterMs ?? 0);
      return changes;
    },
  } as unknown as Connector;
  return { connector, reads, writes };
}

const account: TargetAccount = { id: 'u1', accountId: 'jdoe@contoso.example', enabled: true };

describe('changeMemberships (spec: Membership write procedure)', () => {
  it('writes only effective changes, removals first, and leaves unnamed groups alone', async () => {
    const clock = virtualClock();
    const { connector, writes } = memoryTarget(clock, { groups: ['keep', 'old', 'same'] });
    const outcome = await changeMemberships(
      connector,
      account,
      { grant: ['new', 'same'], revoke: ['old', 'never'] },
      clock,
    );
    expect(writes).toEqual(['-old', '+new']);
    expect(outcome.changes.map((c) => `${c.change} ${c.groupId}`)).toEqual([
      'removed old',
      'added new',
    ]);
    expect(outcome.plan.unchanged).toEqual(['same', 'never']);
    expect(outcome.verificationReads).toBe(1);
  });

  it('keeps changes the target already had out of the effective changes, but verifies them', async () => {
    const clock = virtualClock();
    const { connector, reads } = memoryTarget(clock, { groups: [] });
    const apply = connector.applyMembershipPlan.bind(connector);
    connector.applyMembershipPlan = async (a, plan, names) =>
      (await apply(a, plan, names)).map((change) =>
        change.groupId === 'g2' ? { ...change, alreadyInPlace: true } : change,
      );
    const outcome = await changeMemberships(
      connector,
      account,
      { grant: ['g1', 'g2'], revoke: [] },
      clock,
    );
    expect(outcome.changes.map((c) => c.groupId)).toEqual(['g1']);
    expect(outcome.alreadyInPlace).toEqual(['g2']);
    expect(reads).toHaveLength(2);
  });

  it('writes and re-reads nothing when the request changes nothing', async () => {
    const clock = virtualClock();
    const { connector, writes, reads } = memoryTarget(clock, { groups: ['a'] });
    const outcome = await changeMemberships(
      connector,
      account,
      { grant: ['a'], revoke: ['b'] },
      clock,
    );
    expect(outcome.changes).toEqual([]);
    expect(writes).toEqual([]);
    expect(reads).toHaveLength(1);
  });

  it('re-reads until a late change becomes visible (5 s), within the 30 s window', async () => {
    const clock = virtualClock();
    const { connector, reads } = memoryTarget(clock, { groups: [], visibleAfterMs: 5_000 });
    const outcome = await changeMemberships(
      connector,
      account,
      { grant: ['g1'], revoke: [] },
      clock,
    );
    expect(outcome.verificationReads).toBeGreaterThan(1);
    expect(clock.now()).toBeGreaterThanOrEqual(5_000);
    expect(clock.now()).toBeLessThan(30_000);
    expect(reads.length).toBe(outcome.verificationReads + 1);
  });

  it('fails after 30 s naming the missing group when the change never shows', async () => {
    const clock = virtualClock();
    const { connector } = memoryTarget(clock, { groups: ['x'], visibleAfterMs: 60_000 });
    await expect(
      changeMemberships(connector, account, { grant: ['g1'], revoke: ['x'] }, clock),
    ).rejects.toMatchObject({
      code: 'MEMBERSHIP_MISMATCH',
      message: expect.stringMatching(/missing: Group g1 \(g1\); unexpected: Group x \(x\)/),
      details: {
        missing: [{ id: 'g1', name: 'Group g1' }],
        unexpected: [{ id: 'x', name: 'Group x' }],
      },
    });
    expect(clock.now()).toBe(30_000);
  });

  it('judges a connector that reads named groups only within the changed groups, once', async () => {
    const clock = virtualClock();
    const { connector } = memoryTarget(clock, {
      groups: [],
      dropWrites: ['g2'],
      capabilities: {
        membershipVisibilityWindowMs: 0,
        membershipReadScope: 'named',
        membershipWriteBatchSize: 1,
      },
    });
    await expect(
      changeMemberships(connector, account, { grant: ['g1', 'g2'], revoke: [] }, clock),
    ).rejects.toMatchObject({
      code: 'MEMBERSHIP_MISMATCH',
      details: { missing: [{ id: 'g2' }], unexpected: [] },
    });
    expect(clock.slept).toEqual([]);
  });
});
