import { afterEach, describe, expect, it } from 'vitest';
import { createdAccount, runAccountAction } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * A user's `active` as servers show it: left out (RFC 7643 lets a server omit what it does
 * not return), or spelt `Active` (attribute names are case-insensitive, RFC 7643 §2.1). An
 * absent `active` is unknown, never "enabled": a lock or unlock read back without it is
 * neither confirmed nor refuted, and the step says it could not tell (DESIGN invariant 11).
 * Judged on the sandbox's stored state, which the quirk leaves as it is.
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe('a server that leaves `active` out of its answers', () => {
  it('an unlock the server ignored is not confirmed by default: the step says it could not tell', async () => {
    const t = (target = await startScimTarget({ quirks: { activeAttribute: 'omitted' } }));
    const account = await createdAccount(t.connector, { accountId: 'no.state' });
    expect(account.enabled).toBeUndefined();
    await t.connector.setEnabled(account, false);
    t.sandbox.setQuirks({ activeAttribute: 'omitted', ignorePatchOps: true });

    const outcome = await runAccountAction(t.connector, account, 'unlock');

    // The truth: still locked, which no answer showed.
    expect(t.sandbox.getUser('no.state')?.active).toBe(false);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(outcome.error?.message).toContain('could not tell');
  });

  it('a lock the server made is not refuted by a default: the step says it could not tell', async () => {
    const t = (target = await startScimTarget({ quirks: { activeAttribute: 'omitted' } }));
    const account = await createdAccount(t.connector, { accountId: 'locked.unseen' });

    const outcome = await runAccountAction(t.connector, account, 'lock');

    expect(t.sandbox.getUser('locked.unseen')?.active).toBe(false);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.message).toContain('could not tell');
    // Not "acknowledged but not made": the lock was made, and stays the request's change.
    expect(outcome.changes).toEqual([{ change: 'account locked' }]);
  });
});

describe('a server that spells the attribute `Active`', () => {
  it('a lock and an unlock are read back and confirmed', async () => {
    const t = (target = await startScimTarget({ quirks: { activeAttribute: 'capitalised' } }));
    const account = await createdAccount(t.connector, { accountId: 'capital.a' });
    expect(account.enabled).toBe(true);

    const locked = await runAccountAction(t.connector, account, 'lock');
    expect(t.sandbox.getUser('capital.a')?.active).toBe(false);
    expect(locked.error).toBeUndefined();
    expect(locked.changes).toEqual([{ change: 'account locked' }]);
    expect((await t.connector.findAccount('capital.a'))?.enabled).toBe(false);

    const unlocked = await runAccountAction(t.connector, { ...account, enabled: false }, 'unlock');
    expect(t.sandbox.getUser('capital.a')?.active).toBe(true);
    expect(unlocked.error).toBeUndefined();
    expect(unlocked.changes).toEqual([{ change: 'account unlocked' }]);
  });
});
