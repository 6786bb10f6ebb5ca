import { describe, expect, it } from 'vitest';
import { accountStep, type AccountAction } from '../../../src/domain/account-step';
import type { SerializedError } from '../../../src/domain/errors';
import { driveAsync, type IoResult } from '../../../src/domain/step-machine';
import {
  CONSISTENT,
  LAGGING,
  ScriptedIo,
  stepContext,
  ADA,
  START,
  linkedRecord as record,
} from './scripted-io';

/**
 * A lock or unlock whose answer was lost and that no read confirmed or refuted leaves the
 * enabled state not known in the service's record; the next lock or unlock rests its
 * verdict on a read, never on the record (DESIGN invariants 9 and 11).
 */

const LOST: SerializedError = {
  code: 'TARGET_UNAVAILABLE',
  message: 'entra: PATCH /users/u-ada answered 504',
  retryable: true,
  status: 504,
};

function run(action: AccountAction, io: ScriptedIo, capabilities = LAGGING, revision = 3) {
  return driveAsync(
    accountStep({
      ...stepContext(capabilities),
      ...(revision >= 3 ? { recordsUnconfirmed: true } : {}),
      action,
      profile: { accountId: ADA.accountId },
      lastPasswordUse: false,
    }),
    io,
  );
}

const lost = (): IoResult<never> => ({ ok: false, error: LOST });

/** The record after a lock at START - 40 s that nothing confirmed. */
const unconfirmedLock = () =>
  record({ enabledAt: new Date(START - 40_000).toISOString(), enabledUnconfirmed: false });

describe('a lock whose answer was lost', () => {
  it('marks the state not known when no read within the window shows it on a lagging target', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: lost,
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('lock', io);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.record).toEqual({
      enabledUnconfirmed: { value: false, at: expect.any(String) },
      // The read before showed it unlocked: a later read that finds it applied journals it.
      lostEnabledWrite: {
        change: 'account locked',
        requestId: 'req-1',
        step: 0,
        at: expect.any(String),
        notInPlaceBefore: true,
      },
    });
  });

  it('leaves the record as before for a request accepted before revision 3: its history replays', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: lost,
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('lock', io, LAGGING, 2);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.record).toBeUndefined();
  });

  it('records nothing where reads show writes at once: the read refuted it', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: lost,
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('lock', io, CONSISTENT);
    expect(outcome).toMatchObject({ ok: false, changes: [] });
    expect(outcome.record).toBeUndefined();
  });

  it('marks the state not known when the read-back fails', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: lost,
      readAccount: () => ({
        ok: false,
        error: { code: 'TARGET_UNAVAILABLE', message: '503', retryable: true, status: 503 },
      }),
    });
    const outcome = await run('lock', io, CONSISTENT);
    expect(outcome.notices.join('\n')).toContain('could not tell whether it was applied');
    expect(outcome.record).toEqual({
      enabledUnconfirmed: { value: false, at: expect.any(String) },
      // The read before showed it unlocked: a later read that finds it applied journals it.
      lostEnabledWrite: {
        change: 'account locked',
        requestId: 'req-1',
        step: 0,
        at: expect.any(String),
        notInPlaceBefore: true,
      },
    });
  });
});

describe('the next unlock, with the state not known', () => {
  it('reads until a read shows the lost lock applied, and journals the unlock', async () => {
    // The read before still lags; the third read shows the lock; after the write, unlocked.
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: true }, record: unconfirmedLock() }),
      setAccountEnabled: () => ({}),
      readAccount: (_input, call) => ({ ...ADA, enabled: call < 3 || call > 3 }),
    });
    const outcome = await run('unlock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account unlocked' }] });
    expect(outcome.notices.join('\n')).toContain('shown applied by a read before this write');
    expect(outcome.record?.enabled?.value).toBe(true);
  });

  it('takes the lock as not applied when no read within the window shows it: nothing journaled', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: true }, record: unconfirmedLock() }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [] });
    expect(outcome.notices.join('\n')).toContain('taken as not applied');
  });

  it('says it could not tell, and journals nothing, when no read shows the account', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: null, record: unconfirmedLock() }),
      setAccountEnabled: () => ({}),
      readAccount: (_input, call) => (call <= 9 ? null : { ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome.changes).toEqual([]);
    expect(outcome.notices.join('\n')).toContain('could not tell whether this unlock changed it');
    expect(outcome.notices.join('\n')).not.toContain('already unlocked');
  });

  it('takes a read before that shows the lock as the state, without reading again', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: false }, record: unconfirmedLock() }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account unlocked' }] });
    expect(io.callsOf('readAccount')).toHaveLength(1);
  });

  it('takes a read made an hour after the unconfirmed lock as the state, without reading again', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({
        account: { ...ADA, enabled: true },
        record: record({
          enabledAt: new Date(START - 2 * 60 * 60_000).toISOString(),
          enabledUnconfirmed: false,
        }),
      }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome).toMatchObject({
      ok: true,
      changes: [],
      notices: ['account was already unlocked'],
    });
    expect(io.callsOf('readAccount')).toHaveLength(1);
  });
});

describe('a lost lock found applied later (lost-writes.ts)', () => {
  const lostLock = (notInPlaceBefore: boolean) =>
    record({
      enabledAt: new Date(START - 40_000).toISOString(),
      enabledUnconfirmed: false,
      lostEnabledWrite: {
        change: 'account locked',
        requestId: 'req-0',
        step: 2,
        at: new Date(START - 40_000).toISOString(),
        notInPlaceBefore,
      },
    });

  it('is journaled as the request that sent it when the next unlock reads it applied', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: false }, record: lostLock(true) }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account unlocked' }] });
    expect(outcome.foundLater).toEqual([
      {
        write: expect.objectContaining({ requestId: 'req-0', step: 2, change: 'account locked' }),
        by: 'request "req-1" step 0: the read before its write',
        at: expect.any(String),
      },
    ]);
  });

  it('is not journaled as the service where the state before it was not known', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: false }, record: lostLock(false) }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome.foundLater).toBeUndefined();
    expect(outcome.notices.join('\n')).toContain('not journaled as the service');
  });

  it('is settled, not journaled, when the read that shows it applied comes over an hour after it', async () => {
    const sent = new Date(START - 2 * 60 * 60_000).toISOString();
    const io = new ScriptedIo({
      findAccount: () => ({
        account: { ...ADA, enabled: false },
        record: record({
          enabledAt: sent,
          enabledUnconfirmed: false,
          lostEnabledWrite: {
            change: 'account locked',
            requestId: 'req-0',
            step: 2,
            at: sent,
            notInPlaceBefore: true,
          },
        }),
      }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account unlocked' }] });
    expect(outcome.foundLater).toBeUndefined();
    expect(outcome.notices.join('\n')).toContain('more than an hour after that write');
    expect(outcome.record?.enabled?.value).toBe(true);
  });

  it('is not found by a read that does not show it applied', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: true }, record: lostLock(true) }),
      setAccountEnabled: () => ({}),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await run('unlock', io);
    expect(outcome.foundLater).toBeUndefined();
    // The unlock's own answer settles the record: the lost lock is forgotten with it.
    expect(outcome.record?.enabled?.value).toBe(true);
  });
});
