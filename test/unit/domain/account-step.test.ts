import { describe, expect, it } from 'vitest';
import {
  accountStep,
  PASSWORD_NOT_READABLE,
  type AccountAction,
} from '../../../src/domain/account-step';
import { driveAsync } from '../../../src/domain/step-machine';
import {
  CONSISTENT,
  failure,
  ScriptedIo,
  stepContext,
  LAGGING,
  ADA,
  START,
  linkedRecord as record,
} from './scripted-io';

function run(action: AccountAction, io: ScriptedIo, capabilities = LAGGING) {
  return driveAsync(
    accountStep({
      ...stepContext(capabilities),
      action,
      profile: { accountId: ADA.accountId, displayName: 'Ada Lovelace' },
      lastPasswordUse: false,
    }),
    io,
  );
}

describe('account step: create', () => {
  it('journals a created account and records it as created and enabled now', async () => {
    const io = new ScriptedIo({
      createAccount: () => ({ outcome: 'created', account: ADA, maybeOurs: false }),
    });
    const outcome = await run('create', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account created' }] });
    const at = new Date(START).toISOString();
    expect(outcome.record).toEqual({
      link: { targetId: 'u-1', linkedAt: at, createdAt: at },
      enabled: { value: true, at },
    });
  });

  it('records the state the created account shows: a server may create it inactive', async () => {
    const io = new ScriptedIo({
      createAccount: () => ({
        outcome: 'created',
        account: { ...ADA, enabled: false },
        maybeOurs: false,
      }),
    });
    const outcome = await run('create', io);
    expect(outcome.record?.enabled).toEqual({ value: false, at: new Date(START).toISOString() });
  });

  it('adopts an account that existed before: no change, a notice', async () => {
    const io = new ScriptedIo({
      createAccount: () => ({ outcome: 'adopted', account: ADA, maybeOurs: false }),
    });
    const outcome = await run('create', io);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes).toEqual([]);
    expect(outcome.notices[0]).toContain('existed already and was adopted');
  });

  it('counts an adoption as its own create when its first answer may have been lost', async () => {
    const io = new ScriptedIo({
      createAccount: () => ({ outcome: 'adopted', account: ADA, maybeOurs: true }),
    });
    const outcome = await run('create', io);
    expect(outcome.changes).toEqual([{ change: 'account created' }]);
  });

  it('looks again on the timer when the target says the account exists but reads do not show it', async () => {
    const io = new ScriptedIo({
      createAccount: () => ({ outcome: 'exists', maybeOurs: false }),
      findAccount: (_input, call) => ({ account: call < 3 ? null : ADA, record: null }),
    });
    const outcome = await run('create', io);
    expect(outcome.ok).toBe(true);
    expect(io.callsOf('findAccount').map((c) => (c.at - START) / 1000)).toEqual([1, 3, 7]);
  });
});

describe('account step: create answered "exists" that no read shows within the window', () => {
  it('fails without a verdict on whose it is when an earlier attempt of its own may have made it', async () => {
    const io = new ScriptedIo({
      createAccount: () => ({ outcome: 'exists', maybeOurs: true }),
      findAccount: () => ({ account: null, record: null }),
    });
    const outcome = await run('create', io);
    expect(outcome).toMatchObject({ ok: false, changes: [], error: { code: 'ACCOUNT_NOT_FOUND' } });
    expect(outcome.error?.message).toContain(
      'an earlier attempt of this create, its answer lost, may have made it: could not tell whether this request created it',
    );
    const refused = new ScriptedIo({
      createAccount: () => ({ outcome: 'exists', maybeOurs: false }),
      findAccount: () => ({ account: null, record: null }),
    });
    expect((await run('create', refused)).error?.message).not.toContain('earlier attempt');
  });
});

describe('account step: create with an unusable answer (issue 12, item 5)', () => {
  const unconfirmed = {
    outcome: 'unconfirmed',
    maybeOurs: false,
    fault: 'answered without an id',
    error: {
      code: 'TARGET_RESPONSE_INVALID',
      message: 'POST /Users answered without an id',
      retryable: false,
    },
  };

  it('reads the account back at once and continues when the read shows it, naming the fault', async () => {
    const io = new ScriptedIo({
      createAccount: () => unconfirmed,
      findAccount: () => ({ account: ADA, record: null }),
    });
    const outcome = await run('create', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account created' }] });
    expect(outcome.notices).toEqual([
      'the target created account "ada@contoso.example" but answered without an id; a read by account ID shows it (id u-1)',
    ]);
    expect(outcome.record?.link).toMatchObject({ targetId: 'u-1' });
    expect(io.callsOf('findAccount').map((c) => c.at - START)).toEqual([0]);
  });

  it('fails with the original error when the read does not show the account', async () => {
    const io = new ScriptedIo({
      createAccount: () => unconfirmed,
      findAccount: () => ({ account: null, record: null }),
    });
    const outcome = await run('create', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: false, changes: [], error: unconfirmed.error });
    expect(outcome.notices[0]).toContain('no read by account ID shows account');
    expect(outcome.record).toBeUndefined();
  });

  it('revision 4: a read that shows the create was not applied withdraws its claimed intent', async () => {
    const script = {
      createAccount: () => unconfirmed,
      findAccount: () => ({ account: null, record: null }),
      withdrawIntent: () => null,
    };
    const io = new ScriptedIo(script);
    const outcome = await driveAsync(
      accountStep({
        ...stepContext(CONSISTENT),
        provesOwnCreate: true,
        action: 'create',
        profile: { accountId: ADA.accountId },
        lastPasswordUse: false,
      }),
      io,
    );
    expect(outcome).toMatchObject({ ok: false, error: unconfirmed.error });
    const key = (io.callsOf('createAccount')[0]!.input as { intentKey: string }).intentKey;
    expect(io.callsOf('withdrawIntent').map((c) => c.input)).toEqual([{ intentKey: key }]);
    // Revision 3 withdraws nothing (its histories replay as they ran); a failed read proves nothing.
    const earlier = new ScriptedIo(script);
    await run('create', earlier, CONSISTENT);
    expect(earlier.callsOf('withdrawIntent')).toEqual([]);
    const unread = new ScriptedIo({ ...script, findAccount: () => failure('TARGET_UNAVAILABLE') });
    await driveAsync(
      accountStep({
        ...stepContext(CONSISTENT),
        provesOwnCreate: true,
        action: 'create',
        profile: { accountId: ADA.accountId },
        lastPasswordUse: false,
      }),
      unread,
    );
    expect(unread.callsOf('withdrawIntent')).toEqual([]);
    // Where reads lag (Graph), no read showing the account proves nothing: the claim stays, so
    // that the create's next run knows an account its lost attempt made as its own.
    const lagging = new ScriptedIo(script);
    await driveAsync(
      accountStep({
        ...stepContext(LAGGING),
        provesOwnCreate: true,
        action: 'create',
        profile: { accountId: ADA.accountId },
        lastPasswordUse: false,
      }),
      lagging,
    );
    expect(lagging.callsOf('findAccount').length).toBeGreaterThan(0);
    expect(lagging.callsOf('withdrawIntent')).toEqual([]);
  });

  it('revision 4: an account a read shows after an `exists` answer, not linked and not this request’s, fails ACCOUNT_EXISTS', async () => {
    const io = new ScriptedIo({
      createAccount: () => ({ outcome: 'exists', maybeOurs: false }),
      findAccount: () => ({ account: { ...ADA, enabled: false }, record: null }),
    });
    const outcome = await driveAsync(
      accountStep({
        ...stepContext(LAGGING),
        provesOwnCreate: true,
        action: 'create',
        profile: { accountId: ADA.accountId },
        lastPasswordUse: false,
      }),
      io,
    );
    expect(outcome).toMatchObject({ ok: false, changes: [], error: { code: 'ACCOUNT_EXISTS' } });
    expect(outcome.error?.message).toContain('disabled');
    expect(outcome.record).toBeUndefined();
    // Linked by the service's record: the same account, adopted.
    const linked = new ScriptedIo({
      createAccount: () => ({ outcome: 'exists', maybeOurs: false }),
      findAccount: () => ({ account: ADA, record: record() }),
    });
    const adopted = await driveAsync(
      accountStep({
        ...stepContext(LAGGING),
        provesOwnCreate: true,
        action: 'create',
        profile: { accountId: ADA.accountId },
        lastPasswordUse: false,
      }),
      linked,
    );
    expect(adopted.ok).toBe(true);
  });

  it('on a lagging target, reads again within the visibility window before deciding', async () => {
    const io = new ScriptedIo({
      createAccount: () => unconfirmed,
      findAccount: (_input, call) => ({ account: call < 3 ? null : ADA, record: null }),
    });
    const outcome = await run('create', io, LAGGING);
    expect(outcome.ok).toBe(true);
    expect(io.callsOf('findAccount').map((c) => (c.at - START) / 1000)).toEqual([0, 1, 3]);

    const never = new ScriptedIo({
      createAccount: () => unconfirmed,
      findAccount: () => ({ account: null, record: null }),
    });
    const failedOutcome = await run('create', never, LAGGING);
    expect(failedOutcome.error).toEqual(unconfirmed.error);
    expect(failedOutcome.notices[0]).toContain('within 30 s');
    expect(never.callsOf('findAccount').at(-1)!.at - START).toBe(30_000);
  });

  it('reads back after a create whose answers were all lost, and counts the create as its own', async () => {
    const lost = {
      ok: false,
      error: {
        code: 'TARGET_UNREACHABLE',
        message: 'POST /Users failed (UND_ERR_SOCKET)',
        retryable: true,
        details: { maybeApplied: true },
      },
    };
    const io = new ScriptedIo({
      createAccount: () => lost,
      findAccount: () => ({ account: ADA, record: null }),
    });
    const outcome = await run('create', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account created' }] });
    expect(outcome.notices[0]).toBe(
      'the target created account "ada@contoso.example" but its answer was lost (TARGET_UNREACHABLE); a read by account ID shows it (id u-1)',
    );
  });

  it('does not read back after a failure that cannot have created anything', async () => {
    for (const error of [
      { code: 'SCIM_INVALID_VALUE', message: 'refused', retryable: false, status: 400 },
      {
        code: 'TARGET_UNREACHABLE',
        message: 'refused',
        retryable: true,
        details: { maybeApplied: false },
      },
    ]) {
      const io = new ScriptedIo({ createAccount: () => ({ ok: false, error }) });
      const outcome = await run('create', io, CONSISTENT);
      expect(outcome).toMatchObject({ ok: false, error, notices: [] });
      expect(io.callsOf('findAccount')).toEqual([]);
    }
  });

  it("says it could not tell when the read itself fails, and fails with the read's error, which a hold may settle", async () => {
    const io = new ScriptedIo({
      createAccount: () => unconfirmed,
      findAccount: () => failure('TARGET_UNAVAILABLE'),
    });
    const outcome = await run('create', io, CONSISTENT);
    expect(outcome.error?.code).toBe('TARGET_UNAVAILABLE');
    expect(outcome.changes).toEqual([]);
    expect(outcome.notices[0]).toContain('could not tell whether it was created');
  });
});

describe('account step: lock and unlock (a read never cancels a write)', () => {
  it('unlocks right after a lock although a lagging read still shows the account enabled', async () => {
    // The service locked it 2 s ago; the replica read still shows the state before.
    const locked = record({ enabled: false, enabledAt: new Date(START - 2_000).toISOString() });
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: true }, record: locked }),
      setAccountEnabled: () => ({}),
      readAccount: (_input, call) => ({ ...ADA, enabled: call >= 3 }),
    });
    const outcome = await run('unlock', io);
    expect(io.callsOf('setAccountEnabled')).toHaveLength(1);
    expect(io.callsOf('setAccountEnabled')[0]!.input.enabled).toBe(true);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account unlocked' }] });
    expect(outcome.notices).toContain('confirmed after 3 reads over 3 s');
    expect(outcome.record?.enabled?.value).toBe(true);
  });

  it('writes a lock the service made moments ago again, and journals nothing', async () => {
    const locked = record({ enabled: false, enabledAt: new Date(START - 2_000).toISOString() });
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: true }, record: locked }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: false }),
    });
    const outcome = await run('lock', io);
    expect(io.callsOf('setAccountEnabled')).toHaveLength(1);
    expect(outcome).toMatchObject({
      ok: true,
      changes: [],
      notices: ['account was already locked'],
    });
  });

  it('fails naming what it read when the read-back never confirms within 30 s', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('lock', io);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(outcome.error?.message).toContain('expected locked, read back unlocked');
    expect(io.callsOf('readAccount').map((c) => (c.at - START) / 1000)).toEqual([
      0, 1, 3, 7, 12, 17, 22, 27, 30,
    ]);
    // A lagging target's read may still be behind: the write went out and is journaled.
    expect(outcome.changes).toEqual([{ change: 'account locked' }]);
  });

  it('journals and records nothing where reads show writes at once and the read-back shows the lock not made', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('lock', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(outcome.record).toBeUndefined();
    expect(outcome.notices).toEqual([expect.stringContaining('nothing journaled')]);
  });

  it('says it could not tell where the read-back shows no state: neither confirmed nor refuted', async () => {
    const withoutState = { id: ADA.id, accountId: ADA.accountId };
    const io = new ScriptedIo({
      findAccount: () => ({ account: withoutState, record: record() }),
      setAccountEnabled: () => ({}),
      readAccount: () => withoutState,
    });
    const outcome = await run('lock', io, CONSISTENT);
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(outcome.error?.message).toContain('could not tell');
    // Not refuted: the acknowledged lock stays the request's change.
    expect(outcome.changes).toEqual([{ change: 'account locked' }]);
  });

  it('journals an acknowledged lock that no read shows the account for: nothing contradicts it', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: () => ({}),
      readAccount: () => null,
    });
    const outcome = await run('lock', io, CONSISTENT);
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(outcome.changes).toEqual([{ change: 'account locked' }]);
  });

  it('replays a recorded answer that showed the state as it ran: no read', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: null }),
      setAccountEnabled: () => ({ seen: false }),
    });
    const outcome = await run('lock', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account locked' }] });
    expect(io.callsOf('readAccount')).toEqual([]);
  });

  it('writes to an account the record knows although a lagging read does not show it yet', async () => {
    const created = record({
      createdAt: new Date(START - 1_000).toISOString(),
      enabled: true,
      enabledAt: new Date(START - 1_000).toISOString(),
    });
    const io = new ScriptedIo({
      findAccount: () => ({ account: null, record: created }),
      setAccountEnabled: (_input, call) => (call === 1 ? failure('ACCOUNT_NOT_FOUND') : {}),
      readAccount: (_input, call) => (call === 1 ? null : { ...ADA, enabled: false }),
    });
    const outcome = await run('lock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account locked' }] });
    expect(io.callsOf('setAccountEnabled').map((c) => (c.at - START) / 1000)).toEqual([0, 1]);
  });
});

describe('account step: delete', () => {
  it('sends the delete again while the account is new enough to be invisible to writes', async () => {
    const created = record({ createdAt: new Date(START - 500).toISOString() });
    const io = new ScriptedIo({
      findAccount: () => ({ account: null, record: created }),
      deleteAccount: (_input, call) => ({
        outcome: call < 3 ? 'absent' : 'deleted',
        maybeOurs: false,
      }),
      readAccount: () => null,
    });
    const outcome = await run('delete', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account deleted' }] });
    expect(outcome.record).toEqual({
      removed: { targetId: 'u-1', at: new Date(START + 3_000).toISOString() },
    });
    const keys = io.callsOf('deleteAccount').map((c) => c.input.intentKey);
    expect(new Set(keys).size).toBe(3);
  });

  it('says "already gone" for an old account the target answers 404 for', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: null, record: record() }),
      deleteAccount: () => ({ outcome: 'absent', maybeOurs: false }),
    });
    const outcome = await run('delete', io);
    expect(outcome).toMatchObject({
      ok: true,
      changes: [],
      notices: [expect.stringContaining('already gone')],
    });
    expect(io.callsOf('deleteAccount')).toHaveLength(1);
  });

  it('succeeds without a write when neither a record nor a read knows the account', async () => {
    const io = new ScriptedIo({ findAccount: () => ({ account: null, record: null }) });
    const outcome = await run('delete', io);
    expect(outcome).toMatchObject({ ok: true, changes: [] });
    expect(outcome.notices[0]).toContain('nothing to delete');
  });

  /** A delete as revision 5 runs it: "absent" only on evidence (`provesAbsence`). */
  function deleteProvingAbsence(io: ScriptedIo) {
    return driveAsync(
      accountStep({
        ...stepContext(CONSISTENT),
        provesAbsence: true,
        action: 'delete',
        profile: { accountId: ADA.accountId },
        lastPasswordUse: false,
      }),
      io,
    );
  }

  it('revision 5: asks what proves an unlinked account absent, and says so', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({
        account: null,
        record: null,
        absence: { outcome: 'absent', evidence: 'no user of that name in any case' },
      }),
    });
    const outcome = await deleteProvingAbsence(io);
    expect(io.callsOf('findAccount')[0]?.input).toMatchObject({ provesAbsence: true });
    expect(outcome).toMatchObject({ ok: true, changes: [] });
    expect(outcome.notices[0]).toContain('(no user of that name in any case): nothing to delete');
    expect(io.callsOf('deleteAccount')).toHaveLength(0);
  });

  it('revision 5: sends the delete to the name where only the delete can tell', async () => {
    const byName = { id: ADA.accountId, accountId: ADA.accountId };
    const io = new ScriptedIo({
      findAccount: () => ({
        account: null,
        record: null,
        absence: { outcome: 'byName', account: byName },
      }),
      deleteAccount: () => ({ outcome: 'deleted', maybeOurs: false }),
      readAccount: () => null,
    });
    const outcome = await deleteProvingAbsence(io);
    expect(io.callsOf('deleteAccount')[0]?.input).toMatchObject({ account: byName });
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account deleted' }] });
  });

  it('revision 5: a lookup that brings no evidence fails the delete, could not tell', async () => {
    const io = new ScriptedIo({ findAccount: () => ({ account: null, record: null }) });
    const outcome = await deleteProvingAbsence(io);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.error?.code).toBe('ACCOUNT_NOT_FOUND');
    expect(outcome.error?.message).toContain('could not tell');
    expect(io.callsOf('deleteAccount')).toHaveLength(0);
  });

  it('journals and records nothing when reads still show the account the target said it deleted', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      deleteAccount: () => ({ outcome: 'deleted', maybeOurs: false }),
      readAccount: () => ADA,
    });
    const outcome = await run('delete', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(outcome.record).toBeUndefined();
  });

  it('confirms a delete only once a read no longer shows the account', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      deleteAccount: () => ({ outcome: 'deleted', maybeOurs: false }),
      readAccount: (_input, call) => (call < 2 ? ADA : null),
    });
    const outcome = await run('delete', io);
    expect(outcome.ok).toBe(true);
    expect(io.callsOf('readAccount')).toHaveLength(2);
  });
});

describe('account step: update', () => {
  it('fails naming the attribute a read-back keeps showing with another value', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      updateAccount: () => null,
      readAccount: () => ({ ...ADA, profile: { displayName: 'Ada' } }),
    });
    const outcome = await run('update', io);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(outcome.error?.message).toContain('displayName');
    expect(outcome.changes).toEqual([{ change: 'account updated' }]);
  });

  it('journals nothing where reads show writes at once and no written value reads back', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      updateAccount: () => null,
      readAccount: () => ({ ...ADA, profile: { displayName: 'Ada' } }),
    });
    const outcome = await run('update', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.notices).toEqual([expect.stringContaining('nothing journaled')]);
  });

  it('journals an update the read-back shows in part', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      updateAccount: () => null,
      readAccount: () => ({ ...ADA, profile: { displayName: 'Ada Lovelace', email: 'old@x' } }),
    });
    const outcome = await driveAsync(
      accountStep({
        ...stepContext(CONSISTENT),
        action: 'update',
        profile: { accountId: ADA.accountId, displayName: 'Ada Lovelace', email: 'ada@x' },
        lastPasswordUse: false,
      }),
      io,
    );
    expect(outcome.error?.message).toContain('email');
    expect(outcome.changes).toEqual([{ change: 'account updated' }]);
  });

  it('succeeds once a read shows the written values', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      updateAccount: () => null,
      readAccount: (_input, call) => ({
        ...ADA,
        profile: { displayName: call < 2 ? 'Ada' : 'Ada Lovelace' },
      }),
    });
    const outcome = await run('update', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account updated' }] });
  });

  it("journals an update a lagging read shows as in place seconds after the service's own update", async () => {
    // The service changed the name 5 s ago; a replica may still show the name from before,
    // which is what this update asks for again.
    const shown = { ...ADA, profile: { displayName: 'Ada Lovelace' } };
    const io = new ScriptedIo({
      findAccount: () => ({
        account: shown,
        record: record({ profileAt: new Date(START - 5_000).toISOString() }),
      }),
      updateAccount: () => null,
      readAccount: () => shown,
    });
    const outcome = await run('update', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account updated' }] });
    expect(outcome.record?.profileAt).toBe(new Date(START).toISOString());
  });

  it("journals no change when the read before shows the values and the service's last update is older than the window", async () => {
    const shown = { ...ADA, profile: { displayName: 'Ada Lovelace' } };
    const io = new ScriptedIo({
      findAccount: () => ({
        account: shown,
        record: record({ profileAt: new Date(START - 60_000).toISOString() }),
      }),
      updateAccount: () => null,
      readAccount: () => shown,
    });
    const outcome = await run('update', io);
    expect(outcome).toMatchObject({ ok: true, changes: [] });
    expect(outcome.notices).toContain('already as requested, nothing changed');
    expect(io.callsOf('updateAccount')).toHaveLength(1);
  });

  it('links an account found without a record', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: null }),
      updateAccount: () => null,
      readAccount: () => ({ ...ADA, profile: { displayName: 'Ada Lovelace' } }),
    });
    const outcome = await run('update', io);
    expect(outcome.record?.link?.targetId).toBe('u-1');
  });
});

describe('account step: set password', () => {
  it('journals the password set, and says the success rests on the answer alone', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setPassword: () => null,
    });
    const outcome = await driveAsync(
      accountStep({
        ...stepContext(LAGGING),
        action: 'setPassword',
        profile: { accountId: ADA.accountId },
        passwordSecret: 'pw-req-1',
        lastPasswordUse: true,
      }),
      io,
    );
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'password set' }] });
    expect(outcome.notices).toEqual([PASSWORD_NOT_READABLE]);
    expect(io.callsOf('readAccount')).toEqual([]);
  });
});
