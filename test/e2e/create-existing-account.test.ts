import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * A create must never take over someone else's account: an account under the name that the
 * service's record does not link and this request did not make fails the create with
 * ACCOUNT_EXISTS, and nothing after it runs on that account (judged by the sandboxes' truth).
 */

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

async function submit(body: Record<string, unknown>) {
  const answer = await t.api('POST', '/api/requests', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.requestId as string;
}

describe('a create that meets an existing account it has no evidence is its own', () => {
  it('on SCIM: the deactivated leaver is not adopted, the grant does not run, the account is unchanged', async () => {
    const { scim } = t.host.sandboxes!;
    const accountId = 'rehire.scim';
    const [leaver] = scim.seedUsers([
      { userName: accountId, displayName: 'Old Leaver', active: false },
    ]);
    const [old] = scim.seedGroups([{ displayName: 'Leaver Old Team', members: [leaver!.id] }]);
    const before = scim.getUser(leaver!.id);
    scim.clearTruthLog();

    const report = await t.finished(
      await submit({
        connector: 'scim-sandbox',
        account: { accountId, displayName: 'New Hire' },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
      }),
    );

    expect(report.status).toBe('failed');
    expect(report.steps.map((s: { state: string }) => s.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0].error).toMatchObject({ code: 'ACCOUNT_EXISTS', object: accountId });
    expect(report.steps[0].error.message).toContain(leaver!.id);
    expect(report.steps[0].error.message).toContain('disabled');
    expect(report.steps[0].error.message).toContain('not linked');
    expect(report.steps[0].changes).toEqual([]);
    // The target's truth: nothing committed, the leaver as it was, in its old group only.
    expect(scim.truthLog()).toEqual([]);
    expect(scim.getUser(leaver!.id)).toEqual(before);
    expect(scim.groupIdsOf(leaver!.id)).toEqual([old!.id]);
    const journal = await t.api(
      'GET',
      `/api/journal?connector=scim-sandbox&accountId=${accountId}`,
    );
    expect(journal.body.entries).toEqual([]);
  });

  it('on Graph: another user holding the UPN is not adopted, the grant does not run', async () => {
    const { graph } = t.host.sandboxes!;
    const accountId = 'jsmith@contoso.example';
    const other = graph.addUser({
      userPrincipalName: accountId,
      displayName: 'John Smith (Finance)',
      accountEnabled: true,
    });
    const before = graph.getUser(other.id);
    graph.clearTruthLog();

    const report = await t.finished(
      await submit({
        connector: 'graph-sandbox',
        account: { accountId, displayName: 'John Smith', givenName: 'John', familyName: 'Smith' },
        password: 'Initial-Passw0rd!',
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
      }),
    );

    expect(report.status).toBe('failed');
    expect(report.steps.map((s: { state: string }) => s.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0].error).toMatchObject({ code: 'ACCOUNT_EXISTS', object: accountId });
    expect(report.steps[0].error.message).toContain(other.id);
    expect(report.steps[0].error.message).toContain('enabled');
    expect(graph.truthLog()).toEqual([]);
    expect(graph.getUser(other.id)).toEqual(before);
    expect(graph.groupIdsOf(other.id)).toEqual([]);
  });

  it('on SCIM: a create sent again for the account the service made adopts it (its record links it)', async () => {
    const { scim } = t.host.sandboxes!;
    const accountId = 'again.scim';
    const first = await t.finished(
      await submit({
        connector: 'scim-sandbox',
        account: { accountId, displayName: 'Again' },
        actions: [{ type: 'create' }],
      }),
    );
    expect(first.status).toBe('succeeded');
    const second = await t.finished(
      await submit({
        connector: 'scim-sandbox',
        account: { accountId, displayName: 'Again' },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
      }),
    );
    expect(second.status).toBe('succeeded');
    expect(second.steps[0].notices.join(' ')).toContain('existed already and was adopted');
    const id = scim.getUser(accountId)!.id as string;
    expect(scim.groupIdsOf(id)).toEqual([scim.getGroup('Sales')!.id]);
  });
});
