import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserBody } from '../integration/sandbox/graph-test-client';
import { journalOfRequests } from '../support/journal-truth';
import { byHand, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * The service's record links an account ID to object X. X is deleted outside the service,
 * and a new account Y is created outside under the same name (a new employee's). A request
 * for the account ID must not act on Y, relink it or journal anything: the lookup fails with
 * ACCOUNT_EXISTS naming both ids, and an operator decides (DESIGN invariant 11: a name alone
 * is no evidence, as for a create). Judged by the sandboxes' truth and the journal rows.
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

describe('a linked account deleted outside, its account ID taken by a new account', () => {
  it('on SCIM: a delete does not delete the new account, and nothing is relinked or journaled', async () => {
    const { scim } = t.host.sandboxes!;
    const accountId = 'relink.scim';
    const created = await t.finished(
      await submit({
        connector: 'scim-sandbox',
        account: { accountId, displayName: 'First Holder' },
        actions: [{ type: 'create' }],
      }),
    );
    expect(created.status).toBe('succeeded');
    const linked = scim.getUser(accountId)!.id as string;
    const admin = scimAdmin(t);
    await admin.deleteUser(linked);
    const newcomer = (await admin.createUser(accountId))!.id as string;
    expect(newcomer).not.toBe(linked);
    scim.clearTruthLog();

    const requestId = await submit({
      connector: 'scim-sandbox',
      account: { accountId },
      actions: [{ type: 'delete' }],
    });
    const report = await t.finished(requestId);

    expect(report.status).toBe('failed');
    expect(report.steps[0].error).toMatchObject({ code: 'ACCOUNT_EXISTS', object: accountId });
    expect(report.steps[0].error.message).toContain(linked);
    expect(report.steps[0].error.message).toContain(newcomer);
    // The target's truth: nothing committed, the new account still there.
    expect(scim.truthLog()).toEqual([]);
    expect(scim.getUser(newcomer)).toBeDefined();
    expect(await journalOfRequests(t, [requestId])).toEqual([]);
    // Not relinked: a second request is refused the same way.
    const again = await t.finished(
      await submit({
        connector: 'scim-sandbox',
        account: { accountId },
        actions: [{ type: 'lock' }],
      }),
    );
    expect(again.steps[0].error).toMatchObject({ code: 'ACCOUNT_EXISTS' });
    expect(scim.truthLog()).toEqual([]);
  });

  it('on Graph: a lock and a grant do not touch the new user, and nothing is relinked or journaled', async () => {
    const { graph } = t.host.sandboxes!;
    const accountId = 'relink.graph@contoso.example';
    const created = await t.finished(
      await submit({
        connector: 'graph-sandbox',
        account: { accountId, displayName: 'First Holder', givenName: 'First', familyName: 'H' },
        password: 'Initial-Passw0rd!',
        actions: [{ type: 'create' }],
      }),
    );
    expect(created.status).toBe('succeeded');
    const linked = graph.userIdByUpn(accountId)!;
    // Long after the create: a "not found" of the linked user is no replication lag.
    t.clock.advanceBy(5 * 60_000);
    const newcomer = await byHand(t, async (portal) => {
      expect(await portal.call('DELETE', `/users/${linked}`)).toMatchObject({ status: 204 });
      const answer = await portal.call('POST', '/users', newUserBody('relink.graph'));
      if (answer.reset) throw new Error(`POST /users: the connection was reset (${answer.code})`);
      expect(answer.status).toBe(201);
      return String(answer.body.id);
    });
    expect(graph.userIdByUpn(accountId)).toBe(newcomer);
    const before = graph.getUser(newcomer);
    graph.clearTruthLog();

    const requestId = await submit({
      connector: 'graph-sandbox',
      account: { accountId },
      actions: [{ type: 'lock' }, { type: 'grant', groups: ['Engineering'] }],
    });
    const report = await t.finished(requestId);

    expect(report.status).toBe('failed');
    expect(report.steps[0].error).toMatchObject({ code: 'ACCOUNT_EXISTS', object: accountId });
    expect(report.steps[0].error.message).toContain(linked);
    expect(report.steps[0].error.message).toContain(newcomer);
    expect(report.steps.map((s: { changes: unknown[] }) => s.changes)).toEqual([[], []]);
    expect(graph.truthLog()).toEqual([]);
    expect(graph.getUser(newcomer)).toEqual(before);
    expect(graph.groupIdsOf(newcomer)).toEqual([]);
    expect(await journalOfRequests(t, [requestId])).toEqual([]);
  });
});

describe('an operator links the account ID to the object that holds it now', () => {
  it('only to the object the target shows holding it; then requests act on that object', async () => {
    const { scim } = t.host.sandboxes!;
    const accountId = 'relink.operator';
    const created = await t.finished(
      await submit({
        connector: 'scim-sandbox',
        account: { accountId, displayName: 'Returning Hire' },
        actions: [{ type: 'create' }],
      }),
    );
    expect(created.status).toBe('succeeded');
    const linked = scim.getUser(accountId)!.id as string;
    const link = (body: Record<string, unknown>) =>
      t.api('POST', `/api/connectors/scim-sandbox/accounts/${accountId}/link`, body);

    // The linked object is still there: nothing to relink.
    const early = await link({ targetId: 'some-other-id', reason: 'HR-1234' });
    expect(early.status, JSON.stringify(early.body)).toBe(409);
    expect(early.body.error.message).toContain('still there');

    const admin = scimAdmin(t);
    await admin.deleteUser(linked);
    const newcomer = (await admin.createUser(accountId))!.id as string;
    const refused = await t.finished(
      await submit({
        connector: 'scim-sandbox',
        account: { accountId },
        actions: [{ type: 'lock' }],
      }),
    );
    expect(refused.steps[0].error).toMatchObject({ code: 'ACCOUNT_EXISTS' });

    // Not the object that holds the account ID: refused, naming the holder.
    const wrong = await link({ targetId: 'not-the-holder', reason: 'HR-1234' });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toMatchObject({ code: 'REQUEST_CONFLICT', object: accountId });
    expect(wrong.body.error.message).toContain(newcomer);
    expect((await link({ targetId: newcomer, reason: ' ' })).status).toBe(400);
    expect((await link({ targetId: newcomer })).status).toBe(400);
    expect(scim.getUser(newcomer)!.active).not.toBe(false);

    // A request holding the account: the link waits for it (never between a request's writes).
    const accounts = t.host.services.accounts;
    const held = await accounts.acquire(
      'scim-sandbox',
      accountId,
      'a-request',
      t.clock.now(),
      60_000,
    );
    expect(held.acquired).toBe(true);
    const busy = await link({ targetId: newcomer, reason: 'HR-1234' });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('ACCOUNT_BUSY');
    await accounts.release('scim-sandbox', accountId, 'a-request');

    const done = await link({ targetId: newcomer, reason: 'HR-1234: the same person, rehired' });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ linked: true, targetId: newcomer });
    // Kept in the account's record: who, why, and the object linked before.
    expect(await t.host.services.accounts.get('scim-sandbox', accountId)).toMatchObject({
      targetId: newcomer,
      linkedBy: { reason: 'HR-1234: the same person, rehired', fromTargetId: linked },
    });
    expect((await link({ targetId: newcomer, reason: 'again' })).body).toMatchObject({
      linked: false,
    });

    // A request now acts on that object, as the target's truth shows.
    scim.clearTruthLog();
    const requestId = await submit({
      connector: 'scim-sandbox',
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    const locked = await t.finished(requestId);
    expect(locked.status, JSON.stringify(locked.steps)).toBe('succeeded');
    expect(scim.getUser(newcomer)!.active).toBe(false);
    expect((await journalOfRequests(t, [requestId])).map((e) => e.change)).toEqual([
      'account locked',
    ]);
  });
});
