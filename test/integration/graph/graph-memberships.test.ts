import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TargetAccount } from '../../../src/domain/account';
import type { GraphConnector } from '../../../src/connectors/graph';
import {
  ADMIN,
  failureOf,
  requestLines,
  runMembership,
  startHarness,
  type Harness,
} from './graph-harness';

/** Reads everything, writes accounts, but may not write memberships. */
const READ_ONLY = {
  clientId: 'read-only-app',
  secret: 'read-only-secret-1',
  roles: ['User.ReadWrite.All', 'GroupMember.Read.All', 'Directory.Read.All'],
};

let harness: Harness;
let graph: GraphConnector;
let userCount = 0;

beforeAll(async () => {
  harness = await startHarness({ clients: [ADMIN, READ_ONLY] });
  graph = harness.connector();
});

afterAll(async () => {
  await harness.close();
});

beforeEach(() => {
  harness.sandbox.setReplicationDelay(0);
  harness.sandbox.setThrottle(undefined);
  harness.sandbox.clearRequests();
});

/** A fresh user in `count` fresh groups, and `extra` fresh groups it is not in. */
async function seed(
  count: number,
  extra: number,
): Promise<{ account: TargetAccount; inGroups: string[]; free: string[] }> {
  const upn = `member${++userCount}@contoso.example`;
  const { id } = harness.sandbox.addUser({ userPrincipalName: upn });
  const group = (label: string) =>
    harness.sandbox.addGroup({ displayName: `${label} ${userCount}` }).id;
  const inGroups = Array.from({ length: count }, (_, i) => group(`In${i}`));
  for (const groupId of inGroups) harness.sandbox.addMember(groupId, id);
  const free = Array.from({ length: extra }, (_, i) => group(`Free${i}`));
  harness.sandbox.clearRequests();
  return { account: { id, accountId: upn, enabled: true }, inGroups, free };
}

/** Member writes the sandbox saw, single calls and `$batch` sub-requests alike. */
const memberWrites = () =>
  requestLines(harness.sandbox).filter((line) => /^(POST|DELETE) .*\/members\//.test(line));

describe('reading direct memberships', () => {
  it('returns groups only, never directory roles or administrative units, across all pages', async () => {
    const { account, inGroups } = await seed(7, 0);
    const role = harness.sandbox.addDirectoryRole({ displayName: 'User Administrator' }).id;
    const unit = harness.sandbox.addAdministrativeUnit({ displayName: 'Region West' }).id;
    harness.sandbox.addMember(role, account.id);
    harness.sandbox.addMember(unit, account.id);
    const small = harness.connector({ pageSize: 2 });
    const read = await small.readMemberships(account, []);
    expect([...read.groupIds].sort()).toEqual([...inGroups].sort());
    expect(read.groupIds).not.toContain(role);
    expect(read.groupIds).not.toContain(unit);
    expect(read.names[inGroups[0]!]).toBe(`In0 ${userCount}`);
    expect(requestLines(harness.sandbox).filter((line) => line.endsWith('/memberOf')).length).toBe(
      5,
    );
  });
});

describe('membership write procedure (the step machine, directly on the connector)', () => {
  it('grants and revokes only what the request names; other groups stay', async () => {
    const { account, inGroups, free } = await seed(2, 2);
    const revoked = await runMembership(harness, graph, account, 'revoke', [inGroups[0]!]);
    const granted = await runMembership(harness, graph, account, 'grant', [free[0]!]);
    expect([...revoked.changes, ...granted.changes].map((c) => [c.change, c.groupName])).toEqual([
      ['member removed', `In0 ${userCount}`],
      ['member added', `Free0 ${userCount}`],
    ]);
    expect(harness.sandbox.directMemberIds(inGroups[1]!)).toContain(account.id);
    expect(harness.sandbox.directMemberIds(free[0]!)).toContain(account.id);
    expect(harness.sandbox.directMemberIds(inGroups[0]!)).not.toContain(account.id);
  });

  it('removes with /$ref only: the user survives', async () => {
    const { account, inGroups } = await seed(2, 0);
    const outcome = await runMembership(harness, graph, account, 'revoke', inGroups);
    expect(outcome.ok).toBe(true);
    const deletes = requestLines(harness.sandbox).filter((line) => line.startsWith('DELETE'));
    expect(deletes).toHaveLength(2);
    expect(deletes.every((line) => line.replace(' (batch)', '').endsWith('/$ref'))).toBe(true);
    expect(harness.sandbox.getUser(account.id)).toBeDefined();
  });

  it('replication delay of 5 s: succeeds after re-reads', async () => {
    const { account, free } = await seed(1, 2);
    harness.sandbox.setReplicationDelay(5_000);
    const started = harness.clock.now();
    const outcome = await runMembership(harness, graph, account, 'grant', free);
    const elapsed = harness.clock.now() - started;
    expect(outcome.ok).toBe(true);
    expect(outcome.notices.join(' ')).toMatch(/verified after \d+ reads/);
    expect(elapsed).toBeGreaterThanOrEqual(5_000);
    expect(elapsed).toBeLessThan(30_000);
  });

  it('a user created moments ago (not visible yet) can be granted groups at once', async () => {
    const { free } = await seed(0, 1);
    harness.sandbox.setReplicationDelay(2_000);
    const created = await graph.createAccount(
      { accountId: `fresh${userCount}` },
      'Fresh-Passw0rd!',
    );
    if (!('account' in created)) throw new Error('expected a new account');
    const outcome = await runMembership(harness, graph, created.account, 'grant', free);
    expect(outcome.changes).toHaveLength(1);
    expect(harness.sandbox.directMemberIds(free[0]!)).toContain(created.account.id);
  });

  it('a delay longer than 30 s: the step fails naming the missing groups', async () => {
    const { account, free } = await seed(1, 2);
    harness.sandbox.setReplicationDelay(45_000);
    const started = harness.clock.now();
    const outcome = await runMembership(harness, graph, account, 'grant', free);
    expect(outcome.error).toMatchObject({ code: 'MEMBERSHIP_MISMATCH' });
    expect(outcome.error?.message).toContain(`missing: Free0 ${userCount} (${free[0]})`);
    expect(outcome.error?.message).toContain(`Free1 ${userCount} (${free[1]})`);
    expect(harness.clock.now() - started).toBe(30_000);
    // The writes went out: the step still reports them as effective changes.
    expect(outcome.changes).toHaveLength(2);
  });

  it('refuses a dynamic group before any write, naming it', async () => {
    const { account, free } = await seed(0, 1);
    const dynamic = harness.sandbox.addGroup({
      displayName: 'All Sales (dynamic)',
      groupTypes: ['DynamicMembership'],
      membershipRule: 'user.department -eq "Sales"',
    }).id;
    const outcome = await runMembership(harness, graph, account, 'grant', [free[0]!, dynamic]);
    expect(outcome.error).toMatchObject({ code: 'GROUP_NOT_WRITABLE', object: dynamic });
    expect(outcome.error?.message).toContain(
      `All Sales (dynamic) (${dynamic}): dynamic membership`,
    );
    expect(memberWrites()).toEqual([]);
    expect(harness.sandbox.directMemberIds(free[0]!)).not.toContain(account.id);
  });

  it('sends many writes as $batch: 8 grants in one write request', async () => {
    const { account, free } = await seed(0, 8);
    const outcome = await runMembership(harness, graph, account, 'grant', free);
    expect(outcome.changes).toHaveLength(8);
    const lines = requestLines(harness.sandbox);
    // One envelope for the writability reads, one for the additions.
    expect(lines.filter((line) => line === 'POST /v1.0/$batch')).toHaveLength(2);
    expect(memberWrites()).toHaveLength(8);
    expect(memberWrites().every((line) => line.endsWith('/$ref (batch)'))).toBe(true);
    for (const groupId of free)
      expect(harness.sandbox.directMemberIds(groupId)).toContain(account.id);
  });

  it('does not read groups the catalogue vouches for, and still tells a gone group from an unknown member', async () => {
    const { account, free } = await seed(0, 2);
    const answers = await graph.writeMemberships(account, { add: free, remove: [] }, {}, free);
    expect(answers.map((a) => a.outcome)).toEqual(['applied', 'applied']);
    expect(requestLines(harness.sandbox).filter((line) => line.startsWith('GET'))).toEqual([]);
    const gone = '00000000-0000-4000-8000-00000000dead';
    await expect(
      graph.writeMemberships(account, { add: [gone], remove: [] }, {}, [gone]),
    ).rejects.toMatchObject({ code: 'GROUP_NOT_FOUND', object: gone });
  });

  it('a missing account: a gone group is GROUP_NOT_FOUND, a group that is there is ACCOUNT_NOT_FOUND, nothing written', async () => {
    const { free } = await seed(0, 1);
    const there = free[0]!;
    const gone = harness.sandbox.addGroup({ displayName: `Gone ${userCount}` }).id;
    harness.sandbox.deleteGroup(gone);
    const ghost: TargetAccount = {
      id: '00000000-0000-4000-8000-0000000000a1',
      accountId: 'ghost@contoso.example',
      enabled: true,
    };
    harness.sandbox.clearTruthLog();
    const error = await failureOf(
      graph.writeMemberships(ghost, { add: [there, gone], remove: [] }, {}, [there, gone]),
    );
    expect(error).toMatchObject({ code: 'GROUP_NOT_FOUND', object: gone });
    expect(error.details?.written).toEqual([]);
    expect(error.details?.failed).toEqual([
      expect.objectContaining({ groupId: gone, code: 'GROUP_NOT_FOUND', maybeApplied: false }),
      expect.objectContaining({ groupId: there, code: 'ACCOUNT_NOT_FOUND', maybeApplied: false }),
    ]);
    expect(harness.sandbox.truthLog()).toEqual([]);
    expect(harness.sandbox.directMemberIds(there)).toEqual([]);
  });

  it('a read that cannot tell a gone group from an unknown member keeps the answers the call already got', async () => {
    const { account, free } = await seed(0, 1);
    const gone = harness.sandbox.addGroup({ displayName: `Gone ${userCount}` }).id;
    harness.sandbox.deleteGroup(gone);
    harness.sandbox.clearTruthLog();
    // Both adds pass; the read of the gone group that follows is throttled beyond any wait.
    harness.sandbox.setThrottle({ limit: 2, windowMs: 600_000, retryAfterSeconds: 3_600 });
    const error = await failureOf(
      harness
        .connector()
        .writeMemberships(account, { add: [free[0]!, gone], remove: [] }, {}, [free[0]!, gone]),
    );
    expect(error.code).toBe('TARGET_THROTTLED');
    expect(error.message).toContain('the read of the group that tells whether');
    const truth = harness.sandbox
      .truthLog()
      .filter((event) => event.userId === account.id)
      .map((event) => [event.change, event.groupId]);
    expect(truth).toEqual([['member added', free[0]]]);
    // What the truth log shows is what the error hands on for the journal.
    expect(error.details?.written).toEqual([
      expect.objectContaining({ groupId: free[0], change: 'added', outcome: 'applied' }),
    ]);
    expect(error.details?.failed).toEqual([
      expect.objectContaining({ groupId: gone, code: 'TARGET_THROTTLED', maybeApplied: false }),
    ]);
  });

  it('answers "already a member" and "not a member" as already so', async () => {
    const { account, inGroups, free } = await seed(1, 1);
    const answers = await graph.writeMemberships(
      account,
      { add: [inGroups[0]!], remove: [free[0]!] },
      {},
    );
    expect(answers.map((a) => [a.change, a.outcome])).toEqual([
      ['removed', 'already'],
      ['added', 'already'],
    ]);
  });

  it('a removal answered 404 for an account id Graph does not know is no "not a member": the account stays in the group', async () => {
    const { account, inGroups } = await seed(1, 0);
    // The service's record points at an id Graph does not know (the account was recreated).
    const stale: TargetAccount = { ...account, id: '00000000-0000-4000-8000-0000000000b2' };
    harness.sandbox.clearTruthLog();
    const answers = await graph.writeMemberships(
      stale,
      { add: [], remove: [inGroups[0]!] },
      { [inGroups[0]!]: `In0 ${userCount}` },
      [inGroups[0]!],
    );
    // Graph does not know the member, as far as a read tells: nothing was removed.
    expect(answers).toEqual([
      expect.objectContaining({
        groupId: inGroups[0],
        change: 'removed',
        outcome: 'accountNotFound',
      }),
    ]);
    // The service did not create it: no lag to wait for, the step fails naming the account.
    const outcome = await runMembership(harness, graph, stale, 'revoke', [inGroups[0]!]);
    expect(outcome.error).toMatchObject({ code: 'ACCOUNT_NOT_FOUND', object: account.accountId });
    expect(outcome.changes).toEqual([]);
    expect(harness.sandbox.truthLog()).toEqual([]);
    expect(harness.sandbox.directMemberIds(inGroups[0]!)).toContain(account.id);
  });

  it('a removal answered 404 in a call that fails is judged by the same reads: no "not a member" for an id Graph does not know', async () => {
    const { account, inGroups } = await seed(1, 0);
    const stale: TargetAccount = { ...account, id: '00000000-0000-4000-8000-0000000000b3' };
    // The add that follows the removal is refused: a group the catalogue still vouches for
    // has become dynamic.
    const dynamic = harness.sandbox.addGroup({ displayName: `Turned ${userCount}` }).id;
    harness.sandbox.updateGroup(dynamic, {
      groupTypes: ['DynamicMembership'],
      membershipRule: 'user.city -eq "Oslo"',
    });
    harness.sandbox.clearTruthLog();
    const error = await failureOf(
      graph.writeMemberships(stale, { add: [dynamic], remove: [inGroups[0]!] }, {}, [
        inGroups[0]!,
        dynamic,
      ]),
    );
    expect(error.code).toBe('GRAPH_REQUEST_REJECTED');
    // The truth: the account is still in the group; the failure must not say it is not.
    expect(harness.sandbox.directMemberIds(inGroups[0]!)).toContain(account.id);
    expect(harness.sandbox.truthLog()).toEqual([]);
    expect(error.details?.written).toEqual([
      expect.objectContaining({
        groupId: inGroups[0],
        change: 'removed',
        outcome: 'accountNotFound',
      }),
    ]);
    expect(error.details?.failed).toEqual([
      expect.objectContaining({ groupId: dynamic, change: 'added', maybeApplied: false }),
    ]);
  });

  it('a removal answered 404 in a call that fails: "not a member" once reads show group and account, a gone group fails, and Graph changed nothing', async () => {
    const { account, free } = await seed(0, 1);
    const gone = harness.sandbox.addGroup({ displayName: `Gone ${userCount}` }).id;
    harness.sandbox.deleteGroup(gone);
    const dynamic = harness.sandbox.addGroup({ displayName: `Turned ${userCount}` }).id;
    harness.sandbox.updateGroup(dynamic, {
      groupTypes: ['DynamicMembership'],
      membershipRule: 'user.city -eq "Oslo"',
    });
    harness.sandbox.clearTruthLog();
    harness.sandbox.clearRequests();
    const error = await failureOf(
      graph.writeMemberships(account, { add: [dynamic], remove: [free[0]!, gone] }, {}, [
        free[0]!,
        gone,
        dynamic,
      ]),
    );
    expect(error.code).toBe('GRAPH_REQUEST_REJECTED');
    expect(harness.sandbox.truthLog()).toEqual([]);
    // The account read by its id, and the groups the catalogue vouched for, tell.
    expect(requestLines(harness.sandbox)).toContain(`GET /v1.0/users/${account.id}`);
    expect(error.details?.written).toEqual([
      expect.objectContaining({ groupId: free[0], change: 'removed', outcome: 'already' }),
    ]);
    expect(error.details?.failed).toEqual([
      expect.objectContaining({ groupId: dynamic, change: 'added', maybeApplied: false }),
      expect.objectContaining({
        groupId: gone,
        change: 'removed',
        code: 'GROUP_NOT_FOUND',
        maybeApplied: false,
      }),
    ]);
  });

  it('a removal answered 404 after its first attempt was applied and its answer lost, for an account reads do not show yet: may have been applied, never "account not found"', async () => {
    const { free } = await seed(0, 1);
    // Reads lag 20 s: the account created now is not visible to reads by id.
    harness.sandbox.setReplicationDelay(20_000);
    const created = await graph.createAccount({ accountId: `lost${userCount}` }, 'Lost-Passw0rd!');
    if (!('account' in created)) throw new Error('expected a new account');
    const group = free[0]!;
    harness.sandbox.addMember(group, created.account.id);
    harness.sandbox.clearTruthLog();
    harness.sandbox.clearRequests();
    // The DELETE is applied and its answer lost; the transport's retry meets 404.
    harness.sandbox.setFaults({ seed: 1, lostAnswerRate: 1 });
    try {
      const error = await failureOf(
        graph.writeMemberships(created.account, { add: [], remove: [group] }, {}, [group]),
      );
      expect(
        harness.sandbox.requests
          .filter((r) => r.method === 'DELETE' || r.path.endsWith(created.account.id))
          .map((r) => `${r.method} ${r.answerLost === true ? 'lost' : r.status}`),
      ).toEqual(['DELETE lost', 'DELETE 404', 'GET 404']);
      // The truth: the first attempt removed the account from the group.
      expect(harness.sandbox.directMemberIds(group)).not.toContain(created.account.id);
      expect(harness.sandbox.truthLog().map((event) => event.change)).toEqual(['member removed']);
      // Whether it did cannot be told here: the removal may have been applied (the step reads
      // it back), and the account is not said to be missing.
      expect(error.code).toBe('MEMBERSHIP_READ_UNAVAILABLE');
      expect(error.retryable).toBe(false);
      expect(error.details?.written).toEqual([]);
      expect(error.details?.failed).toEqual([
        expect.objectContaining({ groupId: group, change: 'removed', maybeApplied: true }),
      ]);
    } finally {
      harness.sandbox.setFaults(undefined);
    }
  });

  it.each([
    ['dynamic', { groupTypes: ['DynamicMembership'], membershipRule: 'user.city -eq "Oslo"' }],
    ['mail-enabled security', { mailEnabled: true, securityEnabled: true }],
    ['on-premises synced', { onPremisesSyncEnabled: true }],
  ])(
    'a %s group the catalogue still vouches for: its 400s are refusals naming group and account, never "already"',
    async (_, kind) => {
      const { account } = await seed(0, 0);
      const member = harness.sandbox.addGroup({ displayName: `Holds ${userCount}` }).id;
      const other = harness.sandbox.addGroup({ displayName: `Lacks ${userCount}` }).id;
      harness.sandbox.addMember(member, account.id);
      harness.sandbox.updateGroup(member, kind);
      harness.sandbox.updateGroup(other, kind);
      harness.sandbox.clearTruthLog();
      for (const change of [
        { add: [other], remove: [] },
        { add: [], remove: [member] },
      ]) {
        const groupId = change.add[0] ?? change.remove[0]!;
        const error = await failureOf(
          graph.writeMemberships(account, change, { [groupId]: 'Vouched' }, [groupId]),
        );
        expect(error.code).toBe('GRAPH_REQUEST_REJECTED');
        expect(error.message).toContain(
          `account "${account.accountId}" in group Vouched (${groupId})`,
        );
        expect(error.details?.written).toEqual([]);
      }
      expect(harness.sandbox.truthLog()).toEqual([]);
      expect(harness.sandbox.groupIdsOf(account.id)).toEqual([member]);
    },
  );

  it('a grant repeated while the first still replicates is written again, but is no effective change', async () => {
    const { account, free } = await seed(0, 1);
    harness.sandbox.setReplicationDelay(3_000);
    const first = await graph.writeMemberships(account, { add: free, remove: [] }, {});
    expect(first[0]?.outcome).toBe('applied');
    const again = await runMembership(harness, graph, account, 'grant', free);
    expect(again.ok).toBe(true);
    expect(again.changes).toEqual([]);
    expect(again.notices.join(' ')).toContain('already as requested');
    expect(memberWrites()).toHaveLength(2);
  });

  it('a missing permission is a clear error naming the permission', async () => {
    const { account, free } = await seed(0, 1);
    const outcome = await runMembership(
      harness,
      harness.connector({ client: READ_ONLY }),
      account,
      'grant',
      free,
    );
    expect(outcome.error).toMatchObject({
      code: 'GRAPH_PERMISSION_MISSING',
      details: { permission: 'GroupMember.ReadWrite.All' },
    });
    expect(outcome.error?.message).toContain(
      'needs the application permission GroupMember.ReadWrite.All',
    );
  });

  it('survives a throttling burst, honouring Retry-After, in single calls and in $batch', async () => {
    const { account, free } = await seed(0, 6);
    harness.sandbox.setThrottle({ limit: 3, windowMs: 1_000, retryAfterSeconds: 2 });
    harness.clock.sleeps.length = 0;
    const outcome = await runMembership(harness, graph, account, 'grant', free);
    expect(outcome.ok, JSON.stringify(outcome.error)).toBe(true);
    expect(outcome.changes).toHaveLength(6);
    expect(harness.sandbox.requests.some((request) => request.status === 429)).toBe(true);
    expect(harness.clock.sleeps.some((ms) => ms >= 1_000)).toBe(true);
    for (const groupId of free)
      expect(harness.sandbox.directMemberIds(groupId)).toContain(account.id);
  });
});
