import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH, importCatalogue, useServiceBench } from '../../support/service-bench';
import { graphTestClient, type GraphTestClient } from '../sandbox/graph-test-client';

/**
 * Graph answers "not a member" and "already a member" with the codes it gives many other
 * refusals (graph-behaviour.md): the service takes a change for "already so" only on
 * evidence. Each test judges the sandbox's committed state, with reads that lag the
 * directory as Entra's replicas do, so a lagging read cannot vouch for what was not done.
 */
const bench = useServiceBench();
/** The Entra admin center: changes made by hand, outside the service. */
let portal: GraphTestClient;
const groups: Record<string, string> = {};
const EVIDENCE_GROUPS = ['Rule Taken Over', 'Rule Taken Over Too', 'Deleted By Hand', 'Plain'];

beforeAll(async () => {
  for (const name of EVIDENCE_GROUPS) {
    groups[name] = bench.sandboxes.graph.addGroup({ displayName: name }).id;
  }
  // Imported while every group is a plain security group: the catalogue vouches for them all.
  await importCatalogue(bench, GRAPH);
  portal = await graphTestClient(bench.sandboxes.graph, bench.sandboxes.handChanges.graphPortal);
});
afterAll(async () => {
  await portal.close();
});
afterEach(() => {
  bench.sandboxes.graph.setReplicationDelay(0);
});

const upn = (name: string) => `${name}@contoso.example`;
function userId(accountId: string): string {
  const id = bench.sandboxes.graph.userIdByUpn(accountId);
  if (id === undefined) throw new Error(`no user ${accountId} on the sandbox`);
  return id;
}
const isMember = (name: string, accountId: string) =>
  bench.sandboxes.graph.directMemberIds(groups[name]!).includes(userId(accountId));
const journaled = async (accountId: string, requestId: string) =>
  (await bench.journal(GRAPH, accountId))
    .filter((entry) => entry.requestId === requestId)
    .map((entry) => `${entry.change}${entry.groupName === undefined ? '' : ` ${entry.groupName}`}`);

async function create(name: string): Promise<string> {
  const accountId = upn(name);
  const report = await bench.run({
    requestId: `${name}-create`,
    connector: GRAPH,
    account: { accountId, displayName: name },
    actions: [{ type: 'create' }],
  });
  expect(report.status, JSON.stringify(report)).toBe('succeeded');
  return accountId;
}

/** An administrator changes a membership by hand; reads do not show it for two minutes. */
async function byHandUnseen(method: 'POST' | 'DELETE', name: string, accountId: string) {
  bench.sandboxes.graph.setReplicationDelay(120_000);
  const group = groups[name]!;
  const answer =
    method === 'POST'
      ? await portal.call('POST', `/groups/${group}/members/$ref`, portal.ref(userId(accountId)))
      : await portal.call('DELETE', `/groups/${group}/members/${userId(accountId)}/$ref`);
  expect(answer.reset ? 'reset' : answer.status).toBe(204);
}

/** The group becomes dynamic after the import: the catalogue still says it is writable. */
function takenOverByRule(name: string): void {
  bench.sandboxes.graph.updateGroup(groups[name]!, {
    groupTypes: ['DynamicMembership'],
    membershipRule: 'user.department -eq "Sales"',
  });
}

describe('a removal Graph refuses or cannot place is never "not a member" without evidence', () => {
  it('a revoke refused by a group turned dynamic fails, naming group and account, though lagging reads show no membership', async () => {
    const accountId = await create('evidence.revoke');
    await byHandUnseen('POST', 'Rule Taken Over', accountId);
    takenOverByRule('Rule Taken Over');
    const report = await bench.run({
      requestId: 'evidence.revoke-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Rule Taken Over'] }],
    });
    // The truth: the account is still in the group. The step must not say it is done.
    expect(isMember('Rule Taken Over', accountId)).toBe(true);
    expect(report.status).toBe('failed');
    const error = report.steps[0]?.error;
    expect(error?.code).toBe('GRAPH_REQUEST_REJECTED');
    expect(error?.message).toContain(`account "${accountId}"`);
    expect(error?.message).toContain(`Rule Taken Over (${groups['Rule Taken Over']})`);
    expect(error?.message).toContain('dynamic membership rule');
    expect(await journaled(accountId, 'evidence.revoke-1')).toEqual([]);
  });

  it('a revoke from a group deleted by hand fails with GROUP_NOT_FOUND, naming group and account', async () => {
    const accountId = await create('evidence.gone');
    const granted = await bench.run({
      requestId: 'evidence.gone-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Deleted By Hand'] }],
    });
    expect(granted.status).toBe('succeeded');
    const gone = groups['Deleted By Hand']!;
    expect(bench.sandboxes.graph.directMemberIds(gone)).toContain(userId(accountId));
    bench.sandboxes.graph.deleteGroup(gone);
    const report = await bench.run({
      requestId: 'evidence.gone-2',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Deleted By Hand'] }],
    });
    expect(report.status).toBe('failed');
    const error = report.steps[0]?.error;
    expect(error).toMatchObject({ code: 'GROUP_NOT_FOUND', object: gone });
    expect(error?.message).toContain(`account "${accountId}"`);
    expect(error?.message).toContain(`Deleted By Hand (${gone})`);
    expect(await journaled(accountId, 'evidence.gone-2')).toEqual([]);
  });

  it("a revoke of a group the account is not in is already so: Graph's 404 and reads of the group and the account tell", async () => {
    const accountId = await create('evidence.absent');
    bench.sandboxes.graph.clearRequests();
    const report = await bench.run({
      requestId: 'evidence.absent-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Plain'] }],
    });
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(report.steps[0]?.notices?.join(' ')).toContain('already as requested');
    expect(isMember('Plain', accountId)).toBe(false);
    const removal = bench.sandboxes.graph.requests.find((r) => r.method === 'DELETE');
    expect(removal?.status).toBe(404);
    expect(await journaled(accountId, 'evidence.absent-1')).toEqual([]);
  });
});

describe('an addition Graph refuses for another reason is never "already a member"', () => {
  it('a grant refused by a group turned dynamic fails, naming group and account, though lagging reads still show the membership', async () => {
    const accountId = await create('evidence.grant');
    const granted = await bench.run({
      requestId: 'evidence.grant-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Rule Taken Over Too'] }],
    });
    expect(granted.status).toBe('succeeded');
    await byHandUnseen('DELETE', 'Rule Taken Over Too', accountId);
    takenOverByRule('Rule Taken Over Too');
    const report = await bench.run({
      requestId: 'evidence.grant-2',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Rule Taken Over Too'] }],
    });
    // The truth: the account is not in the group. The step must not say it is.
    expect(isMember('Rule Taken Over Too', accountId)).toBe(false);
    expect(report.status).toBe('failed');
    const error = report.steps[0]?.error;
    expect(error?.code).toBe('GRAPH_REQUEST_REJECTED');
    expect(error?.message).toContain(`account "${accountId}"`);
    expect(error?.message).toContain(`Rule Taken Over Too (${groups['Rule Taken Over Too']})`);
    expect(await journaled(accountId, 'evidence.grant-2')).toEqual([]);
  });
});

describe('a removal answered 404 for an account created a moment ago is lag, not absence', () => {
  it('a revoke in the request that creates the account waits on the timer while reads by id do not show the account, then ends as the truth is', async () => {
    // Every read lags the directory by 12 s (graph-behaviour.md: a new user may 404 for a
    // while); writes see the new account at once. The revoke's DELETE meets the primary,
    // which answers 404 (not a member); the read of the account by id that tells a missing
    // membership from a missing account is served by a replica without the account yet.
    bench.sandboxes.graph.setReplicationDelay(12_000);
    const accountId = upn('evidence.new');
    const report = await bench.run({
      requestId: 'evidence.new-1',
      connector: GRAPH,
      account: { accountId, displayName: 'evidence.new' },
      actions: [{ type: 'create' }, { type: 'revoke', groups: ['Plain'] }],
    });
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    // The truth: the account exists and is not in the group.
    expect(isMember('Plain', accountId)).toBe(false);
    const removals = bench.sandboxes.graph.requests.filter(
      (r) => r.method === 'DELETE' && r.path.endsWith(`/members/${userId(accountId)}/$ref`),
    );
    expect(removals.length).toBeGreaterThan(1);
    expect(removals.every((r) => r.status === 404)).toBe(true);
    expect(await journaled(accountId, 'evidence.new-1')).toEqual(['account created']);
  });
});
