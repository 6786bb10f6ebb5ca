import { afterEach, describe, expect, it } from 'vitest';
import { failedMembershipWrites } from '../../../src/domain/lost-answer';
import { createdAccount, runAccountAction } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * Connector A on servers whose write answers claim what they did not store (scim-interop.md:
 * "PATCH answered 200 ... or 204 silently ignoring the op"): the connector reports no state
 * from such an answer, so the step machine's read decides.
 */

let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe('answers that claim what the server did not store', () => {
  it('a create answered 201 with an id that does not read back is unconfirmed, not created', async () => {
    const t = (target = await startScimTarget({ quirks: { createNotStored: true } }));
    const answer = await t.connector.createAccount({ accountId: 'never.there' });
    expect(answer).toMatchObject({
      outcome: 'unconfirmed',
      fault: expect.stringContaining('but a read by that id does not find it'),
    });
    expect(t.sandbox.listUsers()).toEqual([]);
  });

  it('a create answered 201 whose read back is refused is unconfirmed, not failed: it may have been made', async () => {
    const t = (target = await startScimTarget());
    // The read right after the POST answers 429 for longer than a call waits.
    t.sandbox.injectThrottle(1, '600', { readsOnly: true, afterWrites: 1 });
    const answer = await t.connector.createAccount({ accountId: 'made.unread' });
    expect(answer).toMatchObject({
      outcome: 'unconfirmed',
      maybeOurs: true,
      fault: expect.stringContaining('but reading it back failed'),
    });
    expect(t.sandbox.getUser('made.unread')).toBeDefined();
  });

  it('a lock answered 200 with `active: false` reports no state, and the step reads it back', async () => {
    const t = (target = await startScimTarget());
    const account = await createdAccount(t.connector, { accountId: 'echoed.lock' });
    t.sandbox.setQuirks({ ignorePatchOps: true, ignoredPatchEchoesRequest: true });
    expect(await t.connector.setEnabled(account, false)).toEqual({});
    const outcome = await runAccountAction(t.connector, account, 'lock');
    expect(t.sandbox.getUser('echoed.lock')?.active).toBe(true);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
  });
});

describe('a membership write call that failed in part', () => {
  it('lists each failed write, refused or not, beside the answers the others got', async () => {
    const t = (target = await startScimTarget({ quirks: { memberValuesMustBeInternalIds: true } }));
    const [team, ops] = t.sandbox.seedGroups([{ displayName: 'Team' }, { displayName: 'Ops' }]);
    const account = await createdAccount(t.connector, { accountId: 'part.refused' });
    // A member value that is no user's id: each PATCH is refused with 400 invalidValue.
    const stranger = { ...account, id: 'no-such-user' };
    const failure = await t.connector
      .writeMemberships(stranger, { add: [team!.id, ops!.id], remove: [] }, {})
      .then(
        () => undefined,
        (error: unknown) => error as { toJSON(): Parameters<typeof failedMembershipWrites>[0] },
      );
    expect(failure).toBeDefined();
    const failed = failedMembershipWrites(failure!.toJSON());
    expect(
      failed?.map((write) => [write.groupId, write.change, write.maybeApplied]).sort(),
    ).toEqual(
      [
        [ops!.id, 'added', false],
        [team!.id, 'added', false],
      ].sort(),
    );
    expect(t.sandbox.truthLog().filter((event) => event.change === 'member added')).toEqual([]);
  });
});
