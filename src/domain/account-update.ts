import type { AccountProfile, TargetAccount } from './account';
import { acknowledgedNotMade, readRefutes } from './account-write-verdicts';
import { afterFailedAccountWrite, lagAfter } from './lost-account-write';
import { describeReads, readBack, writePatiently } from './patient-io';
import { changesOf, compareProfile, hasChanges } from './profile-read-back';
import type { AccountRecordUpdate } from './account-record';
import { now, type Machine } from './step-machine';
import { STEP_OPS } from './step-ops';
import { iso, notConfirmed, type StepContext } from './step-context';
import { failed, succeeded, withVerification, type StepOutcome } from './step-outcome';

/**
 * Spec: change an account. The write is sent whatever the read before showed (DESIGN
 * invariant 9); it is an effective change unless that read showed every attribute as
 * requested already; success is declared once a read back shows the values.
 */
export function* updateAccount(
  input: StepContext & { profile: AccountProfile },
  account: TargetAccount,
): Machine<StepOutcome> {
  const changes = changesOf(input.profile);
  if (!hasChanges(changes)) return succeeded([], ['no attribute to update']);
  const written = yield* writePatiently<null>(
    input,
    STEP_OPS.updateAccount,
    { connector: input.connector, account, changes },
    true,
  );
  // A PATCH answers 204 whether it changed anything or not (graph-behaviour.md): where the
  // read before shows every attribute as requested already, the write is no change, unless
  // that read may be a replica from before the service's own last update of the account
  // (DESIGN invariant 9: the read together with the service's record).
  const before = input.handle.seen ? compareProfile(changes, account.profile) : undefined;
  // Revision 1 journaled every update, and its history holds the commit of it.
  const inPlace =
    input.replaysRevision1 !== true &&
    before !== undefined &&
    before.differing.length === 0 &&
    before.unreadable.length === 0 &&
    !mayShowBeforeOwnUpdate(input);
  // Recorded as of the write's answer (a lost one included: it may have been applied); an
  // update the read before showed in place changed nothing a later read could lag behind.
  const answeredAt = yield* now();
  const record: AccountRecordUpdate | undefined = inPlace
    ? undefined
    : { profileAt: iso(answeredAt) };
  const effective = inPlace ? [] : [{ change: 'account updated' as const }];
  const already = inPlace ? ['already as requested, nothing changed'] : [];
  // Revision 4: confirmed only by a read that shows every written value. A value no read
  // shows (a property the target does not return, a replica that has not got it yet) is no
  // evidence of the write (DESIGN invariant 11), and leaves the update not confirmed.
  const everyValue = input.readsEveryValueBack === true;
  const updated = (seen: TargetAccount | null) => {
    if (seen === null) return false;
    const shown = compareProfile(changes, seen.profile);
    return shown.differing.length === 0 && (!everyValue || shown.unreadable.length === 0);
  };
  // What a later update of this request weighs its own against: what this one wrote.
  const wrote = { ...account, profile: { ...account.profile, ...changes } };
  if (!written.ok) {
    const settled = yield* afterFailedAccountWrite(input, account, written.error, updated, {
      what: `update of account "${input.accountId}"`,
      changes: effective,
      notices: already,
      record,
      // A lagging read may show the values from before the service's own last update, which
      // may be what this one asks for again. A create is no such write: before it there was
      // no account, and a read that finds none shows no values.
      ...lagAfter(input.handle.record?.profileAt, input),
    });
    if (settled.ok) input.handle.account = wrote;
    return settled;
  }
  input.handle.account = wrote;
  const back = yield* readBack(input, account, updated, written.readBack);
  if ('error' in back) return failed(back.error, effective, already, record);
  const comparison = compareProfile(changes, back.seen?.profile);
  if (back.confirmed) {
    // Only before revision 4: the others confirmed it, these were named and left unchecked.
    const notices =
      comparison.unreadable.length === 0
        ? already
        : [
            ...already,
            `not readable back from the target, so not verified: ${comparison.unreadable.join(', ')}`,
          ];
    return withVerification(succeeded(effective, notices, record), back);
  }
  // Before revision 4 a value no read showed was left out of the verdict, and its message.
  const unshown = everyValue ? comparison.unreadable : [];
  const detail =
    back.seen === null
      ? 'no read showed the account'
      : [
          ...(comparison.differing.length === 0
            ? []
            : [`still read back with other values: ${comparison.differing.join(', ')}`]),
          ...(unshown.length === 0 ? [] : [`no read shows a value for: ${unshown.join(', ')}`]),
        ].join('; ');
  // The read shows the account with other values for every written one it shows, and none
  // as written: the target acknowledged an update it did not make, which is no evidence of a
  // change (DESIGN invariant 11). A value the read does not show refutes nothing.
  const refuted =
    readRefutes(input) &&
    back.seen !== null &&
    comparison.shown.length === 0 &&
    comparison.differing.length > 0;
  return withVerification(
    failed(
      notConfirmed(
        input,
        `update of account "${input.accountId}" not confirmed: ${detail} after ${describeReads(back.reads, back.elapsedMs)}`,
        {
          differing: comparison.differing,
          ...(unshown.length === 0 ? {} : { unreadable: unshown }),
          reads: back.reads,
        },
      ),
      refuted ? [] : effective,
      refuted ? [...already, acknowledgedNotMade('update', input)] : already,
      record,
    ),
    back,
  );
}

/**
 * Whether the read before the update was made within the visibility window after the
 * service's own last update of the account's attributes: a lagging replica may then show
 * the values from before that update, which may be what this one asks for again.
 */
function mayShowBeforeOwnUpdate(input: StepContext): boolean {
  const { readsMayLagUntilMs } = lagAfter(input.handle.record?.profileAt, input);
  if (readsMayLagUntilMs === undefined) return false;
  const seenAt = input.handle.seenAt;
  return seenAt === undefined || seenAt < readsMayLagUntilMs;
}
