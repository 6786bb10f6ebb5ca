import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ABSENCE_SCAN_MAX } from '../../src/connectors/scim/scim-connector';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * A delete of an account the service holds no link for concludes "already absent" only on
 * evidence: one lookup by name is none (Graph: a read of a UPN can lag a create by seconds,
 * graph-behaviour.md; SCIM: some servers compare `userName eq` case-sensitively, although
 * RFC 7643 marks it caseExact false). Judged by the sandboxes' truth.
 */

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
}, 60_000);
afterEach(() => {
  t.host.sandboxes!.graph.setReplicationDelay(0);
  t.host.sandboxes!.scim.setQuirks({});
});
afterAll(async () => {
  await t?.close();
});

async function deleteRequest(connector: string, accountId: string) {
  const answer = await t.api('POST', '/api/requests', {
    connector,
    account: { accountId },
    actions: [{ type: 'delete' }],
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return t.finished(answer.body.requestId as string);
}

async function journaled(connector: string, accountId: string): Promise<string[]> {
  const journal = await t.api(
    'GET',
    `/api/journal?connector=${connector}&accountId=${encodeURIComponent(accountId)}`,
  );
  return (journal.body.entries as { change: string }[]).map((e) => e.change);
}

describe('a delete of an unlinked Graph user a lagging read does not show yet', () => {
  it('deletes the user by its name and journals the delete', async () => {
    const { graph } = t.host.sandboxes!;
    const accountId = 'lagging.unlinked@contoso.example';
    // Made through Graph a moment ago, not by a request (no record links it): replicas do
    // not show it for 20 s.
    graph.setReplicationDelay(20_000);
    const created = await t.host.services.registry
      .get('graph-sandbox')!
      .createAccount({ accountId, displayName: 'Lagging Unlinked' }, 'Initial-Passw0rd!');
    expect(created.outcome).toBe('created');
    const made = { id: (created as { account: { id: string } }).account.id };
    graph.clearTruthLog();

    const report = await deleteRequest('graph-sandbox', accountId);

    expect(graph.getUser(made.id)).toBeUndefined();
    expect(graph.truthLog().map((e) => `${e.change} ${e.userId}`)).toEqual([
      `account deleted ${made.id}`,
    ]);
    expect(report.status, JSON.stringify(report)).toBe('succeeded');
    expect(report.steps[0].changes).toEqual([{ change: 'account deleted' }]);
    expect(report.steps[0].notices.join(' ')).not.toContain('absent');
    expect(await journaled('graph-sandbox', accountId)).toEqual(['account deleted']);
  });

  it('of a user that is not there: absent on Graph’s own 404 to the delete, nothing changed', async () => {
    const { graph } = t.host.sandboxes!;
    const accountId = 'never.there@contoso.example';
    graph.clearTruthLog();

    const report = await deleteRequest('graph-sandbox', accountId);

    expect(graph.truthLog()).toEqual([]);
    expect(report.status).toBe('succeeded');
    expect(report.steps[0].changes).toEqual([]);
    expect(report.steps[0].notices.join(' ')).toContain('already gone');
    expect(await journaled('graph-sandbox', accountId)).toEqual([]);
  });
});

describe('a delete of an unlinked SCIM user on a server whose userName filter is case-sensitive', () => {
  it('finds the user in another case and deletes it', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ caseSensitiveFilters: true });
    const [user] = scim.seedUsers([{ userName: 'Mixed.Case', displayName: 'Mixed Case' }]);
    scim.clearTruthLog();

    const report = await deleteRequest('scim-sandbox', 'mixed.case');

    expect(scim.getUser(user!.id)).toBeUndefined();
    expect(scim.truthLog().map((e) => `${e.change} ${e.userId}`)).toEqual([
      `account deleted ${user!.id}`,
    ]);
    expect(report.status, JSON.stringify(report)).toBe('succeeded');
    expect(report.steps[0].changes).toEqual([{ change: 'account deleted' }]);
    expect(await journaled('scim-sandbox', 'mixed.case')).toEqual(['account deleted']);
  });

  it('of a user no case of the name matches: absent, nothing changed, saying why', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ caseSensitiveFilters: true });
    scim.seedUsers([{ userName: 'someone.else' }]);
    scim.clearTruthLog();

    const report = await deleteRequest('scim-sandbox', 'nobody.here');

    expect(scim.truthLog()).toEqual([]);
    expect(report.status).toBe('succeeded');
    expect(report.steps[0].changes).toEqual([]);
    expect(report.steps[0].notices.join(' ')).toContain('in any case');
  });

  it('in a directory too large to compare in any case: could not tell, nothing deleted', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ caseSensitiveFilters: true });
    scim.seedUsers(
      Array.from({ length: ABSENCE_SCAN_MAX }, (_, i) => ({ userName: `crowd.${i}` })),
    );
    scim.clearTruthLog();

    const report = await deleteRequest('scim-sandbox', 'Crowd.Unknown');

    expect(scim.truthLog()).toEqual([]);
    expect(report.status).toBe('failed');
    expect(report.steps[0].error?.message).toContain(
      `more than ${ABSENCE_SCAN_MAX} users to compare in any case: could not tell`,
    );
  });
});
