import type { TargetAccount } from './account';
import type { SerializedError } from './errors';
import { describeGroup } from './group';
import { compareMemberships, membershipMismatch } from './membership-comparison';
import type { MembershipWritePlan } from './membership-plan';
import { refusalOf, settledChanges, writeMembershipChanges } from './membership-writes';
import { now, parallel, wait, type IoResult, type Machine } from './step-machine';
import { STEP_OPS, type ReadMembershipsInput } from './step-ops';
import { accountNotFound, type StepContext } from './step-context';
import type { MembershipRead, MembershipWriteAnswer } from './target-answers';
import { delayWithin } from './visibility';

export interface ReadOutcome extends MembershipRead {
  /** False when reads do not show the account (yet): nothing could be read. */
  visible: boolean;
}

/**
 * One membership read: one operation, of every direct group for targets that read them all,
 * of the named groups for targets that read named groups only (the connector reads them
 * together). A read that does not find the account (a new account not replicated yet; or a
 * gone one, which the writes will tell) shows nothing: it plans and reports only (DESIGN
 * invariant 9). In `decisive` groups "not a member" decides something: the connector
 * confirms it (`confirmAbsent`). `vouchedBefore`: an earlier read of the step vouched for
 * the connector's "not a member" (`MembershipRead.absenceVouched`); this one is told so.
 */
export function* readMemberships(
  input: StepContext,
  account: TargetAccount,
  groupIds: readonly string[],
  decisive: ReadonlySet<string> = new Set(),
  vouchedBefore = false,
): Machine<ReadOutcome | { error: SerializedError }> {
  const asked = membershipReadOf(input, groupIds, decisive, vouchedBefore);
  const inputs: ReadMembershipsInput[] =
    asked === undefined ? [] : [{ connector: input.connector, account, ...asked }];
  return readOutcome(input, yield* parallel<MembershipRead>(STEP_OPS.readMemberships, inputs));
}

/**
 * What one membership read asks of the target: the groups, where "not a member" must be
 * confirmed, and whether an earlier read of the step vouched for the connector's "not a
 * member" (only said where it did, and only where an absence is to be confirmed: a step's
 * reads ask as they did before otherwise). Undefined: nothing to read (a target that reads
 * named groups only, and none named).
 */
export function membershipReadOf(
  input: StepContext,
  groupIds: readonly string[],
  decisive: ReadonlySet<string>,
  vouchedBefore = false,
): Pick<ReadMembershipsInput, 'groupIds' | 'confirmAbsent' | 'absenceVouchedBefore'> | undefined {
  if (input.capabilities.membershipReadScope === 'named' && groupIds.length === 0) return undefined;
  const confirmAbsent = groupIds.filter((id) => decisive.has(id));
  if (confirmAbsent.length === 0) return { groupIds: [...groupIds] };
  return {
    groupIds: [...groupIds],
    confirmAbsent,
    ...(vouchedBefore ? { absenceVouchedBefore: true as const } : {}),
  };
}

/** What the answers of a membership read show (see {@link readMemberships}). */
function readOutcome(
  input: StepContext,
  results: readonly IoResult<MembershipRead>[],
): ReadOutcome | { error: SerializedError } {
  const read: ReadOutcome = { groupIds: [], names: {}, notices: [], visible: true };
  // Vouched for when every answer was (a read of no operation vouches for nothing).
  let vouched = results.length > 0;
  for (const result of results) {
    if (!result.ok) {
      if (result.error.code !== 'ACCOUNT_NOT_FOUND') return { error: result.error };
      return {
        groupIds: [],
        names: {},
        notices: [`reads do not show account "${input.accountId}" yet: planned from the request`],
        visible: false,
      };
    }
    read.groupIds.push(...result.value.groupIds);
    Object.assign(read.names, result.value.names);
    read.notices.push(...result.value.notices);
    if (result.value.unproven !== undefined && result.value.unproven.length > 0) {
      (read.unproven ??= []).push(...result.value.unproven);
    }
    vouched &&= result.value.absenceVouched === true;
  }
  return vouched ? { ...read, absenceVouched: true } : read;
}

/**
 * The first read-back of a step's writes, for the last write to make once it is answered
 * (revision 3, `StepContext.foldsReadBack`): the groups the step verifies, each decisive, as
 * {@link verify} would read them (`vouchedBefore` as there). Undefined where the read-back is
 * an operation of its own.
 */
export function foldedReadBack(
  input: StepContext,
  plan: MembershipWritePlan,
  vouchedBefore = false,
): Pick<ReadMembershipsInput, 'groupIds' | 'confirmAbsent' | 'absenceVouchedBefore'> | undefined {
  if (input.foldsReadBack !== true) return undefined;
  const scope = Object.keys(plan.expected);
  return membershipReadOf(input, scope, new Set(scope), vouchedBefore);
}

/** How the read-back after the writes ended. */
export type Verified =
  | {
      reads: number;
      elapsedMs: number;
      notices: string[];
      /** A write of a re-read round whose answer was lost (the read-back showed it). */
      lost?: SerializedError;
    }
  | {
      error: SerializedError;
      read?: { reads: number; elapsedMs: number };
      /** Groups the last read showed otherwise than the writes asked. */
      refuted?: string[];
      /** Groups the last read showed as the step asks; undefined when no read was made. */
      shown?: ReadonlySet<string>;
      /** Groups whose membership the last read could not tell (`MembershipRead.unproven`). */
      untold?: string[];
      lost?: SerializedError;
    };

/**
 * Spec steps 4-6: reads back the groups the step verifies until they are as expected, within
 * the visibility window (one read where reads show writes at once). A group that must go
 * and that no write of this step removed (setMemberships: a lagging read hid it) is removed
 * when a re-read shows it: reconciled inside the window, not only re-read. A change whose
 * answer was lost is not sent again: the reads tell whether it is in place. `folded`: the
 * first read, when the last write made it (`foldedReadBack`). `vouchedBefore`: the step's read
 * before the writes vouched for the connector's "not a member" (`MembershipRead.absenceVouched`):
 * each read back is told so, as the worker that read before believed it; a worker restarted
 * since has not seen that evidence itself, and without it would not tell a membership the
 * writes ended (DESIGN invariant 11: what the run saw, it tells).
 */
export function* verify(
  input: StepContext,
  account: TargetAccount,
  plan: MembershipWritePlan,
  ledger: MembershipWriteAnswer[],
  groups: { names: Record<string, string>; writable: ReadonlySet<string> },
  folded?: IoResult<MembershipRead>,
  vouchedBefore = false,
): Machine<Verified> {
  const { names } = groups;
  // Every group is read back, even one whose write answer listed the change: a server may
  // answer from the request rather than from what it stored (DESIGN invariant 9). Answers
  // recorded by the version before still skip their group, as it did, so that a request
  // running at the upgrade replays the reads its history holds.
  const recordedAsConfirmed = new Set(
    ledger.filter((answer) => answer.confirmedByWrite === true).map((answer) => answer.groupId),
  );
  const scope = Object.keys(plan.expected).filter((id) => !recordedAsConfirmed.has(id));
  if (scope.length === 0) return { reads: 0, elapsedMs: 0, notices: [] };
  const expected = scope.filter((id) => plan.expected[id] === true);
  const started = yield* now();
  const deadline = started + input.capabilities.visibilityWindowMs;
  // Every group read back is a verdict: present or absent, each decides the step.
  const decisive = new Set(scope);
  let lost: SerializedError | undefined;
  const withLost = <T extends object>(result: T): T & { lost?: SerializedError } =>
    lost === undefined ? result : { ...result, lost };
  for (let round = 0; ; round++) {
    // The first read may have come with the write's answers (`foldedReadBack`); where that
    // read failed, it is made again here: it never fails the write.
    const carried = round === 0 && folded !== undefined ? readOutcome(input, [folded]) : undefined;
    const read =
      carried !== undefined && !('error' in carried)
        ? carried
        : yield* readMemberships(input, account, scope, decisive, vouchedBefore);
    if ('error' in read) return withLost({ error: read.error });
    const readAt = yield* now();
    Object.assign(names, read.names);
    // Groups whose "not a member" nothing the target vouches for: neither missing nor gone.
    const untold = input.believesUnprovenAbsence === true ? [] : (read.unproven ?? []);
    const judged = scope.filter((id) => !untold.includes(id));
    const comparison = compareMemberships(expected, read.groupIds, judged);
    // A read that does not show the account shows nothing (DESIGN invariant 11): neither a
    // lost write in place nor a membership gone. A revoke is verified only by a read that
    // shows the account without the group, never by one that does not find the account.
    const blind = !read.visible;
    // What this read shows otherwise than the step asks, and as it asks (nothing, when blind).
    const otherwise = new Set([...comparison.missing, ...comparison.unexpected]);
    const shown = new Set(blind ? [] : judged.filter((id) => !otherwise.has(id)));
    const told = untold.length === 0;
    // Revision 1 took a read that does not show the account as verifying (`replaysRevision1`).
    if (told && comparison.matches && (!blind || input.replaysRevision1 === true)) {
      return withLost({ reads: round + 1, elapsedMs: readAt - started, notices: read.notices });
    }
    const settled = settledChanges(ledger);
    const remove = comparison.unexpected.filter(
      (id) => plan.expected[id] === false && !settled.has(`removed:${id}`),
    );
    const add = comparison.missing.filter(
      (id) => plan.expected[id] === true && !settled.has(`added:${id}`),
    );
    if (remove.length + add.length > 0) {
      const again = yield* writeMembershipChanges(
        input,
        account,
        { remove, add },
        groups,
        `reconcile-${round}`,
      );
      ledger.push(...again.answers);
      if (again.error !== undefined) {
        lost ??= again.lost;
        // Refused: the read before it still showed what it showed. Revision 1 read no
        // more after any failed write.
        if (refusalOf(again) !== undefined) return withLost({ error: again.error, shown });
        if (input.replaysRevision1 === true) return { error: again.error };
      }
    }
    const at = yield* now();
    const delay = delayWithin(round, at, deadline);
    if (delay <= 0) {
      return withLost({
        error:
          blind && comparison.matches
            ? accountNotFound(
                input,
                `: no read back within ${Math.round((at - started) / 1000)} s shows it`,
              )
            : comparison.matches
              ? couldNotTell(input, untold, names, read.notices)
              : membershipMismatch(
                  input.connector,
                  input.accountId,
                  comparison,
                  names,
                  at - started,
                ),
        read: { reads: round + 1, elapsedMs: at - started },
        // A write made after the last read is contradicted by nothing.
        refuted: [...otherwise].filter((id) => !remove.includes(id) && !add.includes(id)),
        shown,
        ...(told ? {} : { untold }),
      });
    }
    yield* wait(delay);
  }
}

/**
 * The failed step of a read-back that could not tell (DESIGN invariant 11): the writes were
 * sent, but nothing the target vouches for shows whether the account is a member of these
 * groups (a member list it may cut short, none returned, and no other way to ask).
 */
function couldNotTell(
  input: StepContext,
  groupIds: readonly string[],
  names: Record<string, string>,
  notices: readonly string[],
): SerializedError {
  const described = groupIds.map((id) => describeGroup({ id, displayName: names[id] ?? id }));
  return {
    code: 'MEMBERSHIP_READ_UNAVAILABLE',
    message:
      `connector "${input.connector}": the read-back could not tell whether account ` +
      `"${input.accountId}" is a member of ${described.join(', ')}: the write was sent, and its ` +
      `effect is not known` +
      (notices.length === 0 ? '' : ` (${notices.join('; ')})`),
    retryable: false,
    object: input.accountId,
    details: { untold: groupIds.map((id) => ({ id, name: names[id] ?? id })) },
  };
}
