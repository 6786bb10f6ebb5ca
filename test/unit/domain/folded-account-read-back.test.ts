import { describe, expect, it } from 'vitest';
import type { TargetAccount } from '../../../src/domain/account';
import { accountStep, type AccountAction } from '../../../src/domain/account-step';
import { driveAsync, type IoResult } from '../../../src/domain/step-machine';
import {
  ADA,
  failure,
  LAGGING,
  linkedRecord as record,
  ScriptedIo,
  START,
  stepContext,
  type OpInput,
} from './scripted-io';

/*
 * Revision 3 (`foldsReadBack`): an update, lock, unlock or delete the step reads back at once
 * makes that first read in the write's own operation; re-reads on the timer, and a read again
 * where the folded one failed, are operations of their own. The read verifies only: the
 * write's answer stands, and the write is never sent again for it (DESIGN invariant 9).
 */

const LOCKED = { ...ADA, enabled: false };

function run(action: AccountAction, io: ScriptedIo, foldsReadBack = true) {
  return driveAsync(
    accountStep({
      ...stepContext(LAGGING),
      ...(foldsReadBack ? { foldsReadBack: true } : {}),
      action,
      profile: { accountId: ADA.accountId, displayName: 'Ada Lovelace' },
      lastPasswordUse: false,
    }),
    io,
  );
}

/** A write answered `answer`, with `read` as its read back when the step asked for one. */
function write<T>(answer: T, read: (call: number) => IoResult<TargetAccount | null>) {
  return (input: OpInput & { readBack?: true }, call: number) =>
    input.readBack === true ? { answer, readBack: read(call) } : answer;
}

const shows = (account: TargetAccount | null): IoResult<TargetAccount | null> => ({
  ok: true,
  value: account,
});
const found = () => ({ account: ADA, record: record() });

describe('account step, revision 3: the first read back comes with the write', () => {
  it('locks with no read operation when the read the write made shows it locked', async () => {
    const io = new ScriptedIo({
      findAccount: found,
      setAccountEnabled: write({}, () => shows(LOCKED)),
    });
    const outcome = await run('lock', io);
    expect(outcome).toMatchObject({
      ok: true,
      changes: [{ change: 'account locked' }],
      verification: { reads: 1, visible: true },
    });
    expect(io.callsOf('setAccountEnabled').map((c) => c.input)).toEqual([
      expect.objectContaining({ enabled: false, readBack: true }),
    ]);
    expect(io.callsOf('readAccount')).toEqual([]);
  });

  it('reads again in an operation of its own when the folded read failed, the lock sent once', async () => {
    const io = new ScriptedIo({
      findAccount: found,
      setAccountEnabled: write({}, () => failure('TARGET_UNAVAILABLE', 'read-back failed: 503')),
      readAccount: () => LOCKED,
    });
    const outcome = await run('lock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account locked' }] });
    expect(io.callsOf('setAccountEnabled')).toHaveLength(1);
    expect(io.callsOf('readAccount').map((c) => (c.at - START) / 1000)).toEqual([0]);
  });

  it('re-reads on the timer while a lagging replica shows the account still enabled', async () => {
    const io = new ScriptedIo({
      findAccount: found,
      setAccountEnabled: write({}, () => shows(ADA)),
      readAccount: (_input, call) => (call < 2 ? ADA : LOCKED),
    });
    const outcome = await run('lock', io);
    expect(outcome).toMatchObject({ ok: true, verification: { reads: 3, visible: true } });
    expect(io.callsOf('readAccount').map((c) => (c.at - START) / 1000)).toEqual([1, 3]);
  });

  it('verifies an update and a delete by the read their write made', async () => {
    const updated = { ...ADA, profile: { displayName: 'Ada Lovelace' } };
    const update = new ScriptedIo({
      findAccount: found,
      updateAccount: write(null, () => shows(updated)),
    });
    expect(await run('update', update)).toMatchObject({
      ok: true,
      changes: [{ change: 'account updated' }],
    });
    expect(update.callsOf('readAccount')).toEqual([]);

    const remove = new ScriptedIo({
      findAccount: found,
      deleteAccount: write({ outcome: 'deleted', maybeOurs: false }, () => shows(null)),
    });
    expect(await run('delete', remove)).toMatchObject({
      ok: true,
      changes: [{ change: 'account deleted' }],
    });
    expect(remove.callsOf('deleteAccount').map((c) => c.input)).toEqual([
      expect.objectContaining({ readBack: true }),
    ]);
    expect(remove.callsOf('readAccount')).toEqual([]);
  });

  it('reads back in an operation of its own in a request accepted before revision 3', async () => {
    const io = new ScriptedIo({
      findAccount: found,
      setAccountEnabled: write({}, () => shows(LOCKED)),
      readAccount: () => LOCKED,
    });
    const outcome = await run('lock', io, false);
    expect(outcome.ok).toBe(true);
    expect(io.callsOf('setAccountEnabled').map((c) => c.input)).toEqual([
      expect.not.objectContaining({ readBack: true }),
    ]);
    expect(io.callsOf('readAccount')).toHaveLength(1);
  });
});
