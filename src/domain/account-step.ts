import type { AccountProfile, TargetAccount } from './account';
import { accountExists, isOwnAccount } from './account-adoption';
import type { AccountRecord, AccountRecordUpdate } from './account-record';
import { resolveAccount } from './account-lookup';
import { acknowledgedNotMade, readRefutes } from './account-write-verdicts';
import { enabledChangeIsEffective } from './effective-change';
import { enabledBefore, type EnabledBefore } from './enabled-before';
import { withEnabledFindings } from './enabled-found-later';
import type { SerializedError } from './errors';
import { intentKey } from './journal-entry';
import { describeLostAnswer, mayHaveBeenApplied } from './lost-answer';
import { afterFailedAccountWrite, lagAfter } from './lost-account-write';
import { describeReads, foldedWrite, readBack, writePatiently } from './patient-io';
import { call, now, wait, type IoResult, type Machine } from './step-machine';
import { STEP_OPS, type AccountLookup } from './step-ops';
import { accountNotFound, iso, mayBeLag, notConfirmed, type StepContext } from './step-context';
import { updateAccount } from './account-update';
import { failed, succeeded, withVerification, type StepOutcome } from './step-outcome';
import type {
  CreateAccountAnswer,
  DeleteAccountAnswer,
  PasswordKept,
  SetEnabledAnswer,
  UnlinkedAbsence,
} from './target-answers';
import { delayWithin, nextRereadDelay } from './visibility';

export type AccountAction = 'create' | 'update' | 'lock' | 'unlock' | 'setPassword' | 'delete';

export interface AccountStepInput extends StepContext {
  action: AccountAction;
  profile: AccountProfile;
  /** Name of the request's transient password secret, when it has one. */
  passwordSecret?: string;
  /** This step is the last one that uses the password: it deletes the secret. */
  lastPasswordUse: boolean;
}

/**
 * One account action (spec: States and transitions). Every write is sent, whatever a read
 * said before; whether it was effective comes from the write's answer or, for lock and
 * unlock, from the read before weighed against the service's record; success is declared
 * after a read shows the new state (DESIGN invariant 9).
 */
export function* accountStep(input: AccountStepInput): Machine<StepOutcome> {
  if (input.action === 'create') return yield* createAccount(input);
  const provesAbsence = input.action === 'delete' && input.provesAbsence === true;
  const resolved = yield* resolveAccount(input, provesAbsence);
  if ('error' in resolved) return failed(resolved.error);
  const { account } = resolved;
  let outcome: StepOutcome;
  if (account === null) {
    outcome =
      input.action === 'delete'
        ? yield* deleteUnlinked(input, provesAbsence ? resolved.absence : undefined)
        : failed(accountNotFound(input));
  } else {
    switch (input.action) {
      case 'update':
        outcome = yield* updateAccount(input, account);
        break;
      case 'lock':
      case 'unlock':
        outcome = yield* setEnabled(input, account, input.action === 'unlock');
        break;
      case 'setPassword':
        outcome = yield* setPassword(input, account);
        break;
      case 'delete':
        outcome = yield* deleteAccount(input, account);
        break;
    }
  }
  return resolved.record === undefined ? outcome : withLink(outcome, resolved.record);
}

function* createAccount(input: AccountStepInput): Machine<StepOutcome> {
  const createKey = intentKey(input.requestId, input.step, STEP_OPS.createAccount);
  const created = yield* call<CreateAccountAnswer & PasswordKept>(STEP_OPS.createAccount, {
    connector: input.connector,
    profile: input.profile,
    ...(input.passwordSecret === undefined
      ? {}
      : { passwordSecret: input.passwordSecret, discardAfterUse: input.lastPasswordUse }),
    intentKey: createKey,
    ...(input.handle.stored === undefined ? {} : { stored: input.handle.stored }),
    ...(input.provesOwnCreate === true ? { provesOwnCreate: true as const } : {}),
  });
  const outcome = yield* createdOutcome(input, createKey, created);
  return created.ok ? withPasswordKept(outcome, created.value) : outcome;
}

/** The create step's outcome from the create's answer (or its failure). */
function* createdOutcome(
  input: AccountStepInput,
  createKey: string,
  created: IoResult<CreateAccountAnswer>,
): Machine<StepOutcome> {
  // A create whose answers were lost (after the transport's and Durable's retries) may
  // have been applied: a read tells, as for an unusable answer (scim-interop.md).
  if (!created.ok && !mayHaveBeenApplied(created.error)) return failed(created.error);
  const answer: CreateAccountAnswer = created.ok ? created.value : lostCreate(created.error);
  // The account exists from the answer on: the visibility window counts from there.
  const answeredAt = yield* now();
  let account: TargetAccount;
  const notices: string[] = [];
  switch (answer.outcome) {
    case 'created':
      account = answer.account;
      notices.push(...(answer.notices ?? []));
      break;
    case 'adopted':
      account = answer.account;
      break;
    case 'taken':
      // Someone else's account under the name: not taken over, the request goes no further.
      return failed(accountExists(input, answer.account));
    case 'exists': {
      const shown = yield* findUntilShown(input, answeredAt, false);
      if ('error' in shown) return failed(shown.error);
      if (shown.account === null) {
        // An earlier attempt whose answer was lost may have made it: no verdict on whose it is.
        const whose = answer.maybeOurs
          ? `; an earlier attempt of this create, its answer lost, may have made it: ` +
            `could not tell whether this request created it`
          : '';
        return failed(
          accountNotFound(
            input,
            `: the target refused to create it again (it exists), but no read showed it within ` +
              `${Math.round(input.capabilities.visibilityWindowMs / 1000)} s${whose}`,
          ),
        );
      }
      // Revision 4: the account a read shows is adopted only on evidence that it is this
      // service's (`provesOwnCreate`).
      if (
        input.provesOwnCreate === true &&
        !isOwnAccount(shown.record, shown.account, answer.maybeOurs)
      ) {
        return failed(accountExists(input, shown.account));
      }
      account = shown.account;
      break;
    }
    case 'unconfirmed': {
      // The verdict rests on the read (DESIGN invariant 11): the account is there, or not.
      const shown = yield* findUntilShown(input, answeredAt, true);
      if ('error' in shown || shown.account === null) {
        const readError = 'error' in shown ? shown.error : undefined;
        // Revision 4: a read that shows the create was not applied withdraws its claim, so
        // that the create's next run (after a hold) takes an account someone else makes
        // meanwhile for no attempt of its own (`provesOwnCreate`). Only where reads show
        // writes at once: on a lagging target the account may be there, unseen, and the
        // claim is what lets the next run know it as its own.
        if (readError === undefined && input.provesOwnCreate === true && readRefutes(input)) {
          yield* call<null>(STEP_OPS.withdrawIntent, { intentKey: createKey });
        }
        // A read that failed fails the step with its own error: a refused credential or a
        // throttled target holds the request, and the create's next run settles it. Revision
        // 1 failed with the create's, and its holds followed from that one.
        return failed(
          (input.replaysRevision1 === true ? undefined : readError) ?? answer.error,
          [],
          [notShownAfter(input, answer.fault, readError)],
        );
      }
      account = shown.account;
      notices.push(
        `the target created account "${input.accountId}" but ${answer.fault}; ` +
          `a read by account ID shows it (id ${account.id})`,
      );
      break;
    }
  }
  // An unusable answer to this request's own create, and a read that shows the account: the
  // create is this request's effective change (scim-interop.md: answer lost after the write).
  const ours = answer.outcome === 'created' || answer.outcome === 'unconfirmed' || answer.maybeOurs;
  const at = iso(answeredAt);
  input.handle.account = account;
  input.handle.seen = true;
  input.handle.seenAt = answeredAt;
  if (ours) input.handle.createdHere = true;
  const record: AccountRecordUpdate = {
    link: { targetId: account.id, linkedAt: at, ...(ours ? { createdAt: at } : {}) },
    // The state the created account shows (a server may create it inactive); where it shows
    // none, the state the create asked for.
    ...(ours ? { enabled: { value: account.enabled ?? true, at } } : {}),
  };
  if (ours) return succeeded([{ change: 'account created' }], notices, record);
  return succeeded(
    [],
    [`account "${input.accountId}" existed already and was adopted (id ${account.id})`],
    record,
  );
}

/** A create that failed after it may have been applied: only a read can tell. */
function lostCreate(error: SerializedError): CreateAccountAnswer {
  return { outcome: 'unconfirmed', maybeOurs: true, fault: describeLostAnswer(error), error };
}

/** Why an unconfirmed create fails: no read showed the account, or the read failed. */
function notShownAfter(
  input: AccountStepInput,
  fault: string,
  readError: SerializedError | undefined,
): string {
  if (readError !== undefined) {
    return (
      `the target ${fault}, and reading account "${input.accountId}" back failed ` +
      `(${readError.code}): could not tell whether it was created`
    );
  }
  const seconds = Math.round(input.capabilities.visibilityWindowMs / 1000);
  return (
    `the target ${fault}, and no read by account ID ${seconds > 0 ? `within ${seconds} s ` : ''}` +
    `shows account "${input.accountId}": it was not created`
  );
}

/**
 * Looks the account up by its account ID until a read shows it or the visibility window
 * has passed (null): at once when `readAtOnce`, else first after the first re-read delay
 * (the target just said the account exists, and its reads lag).
 */
function* findUntilShown(
  input: AccountStepInput,
  started: number,
  readAtOnce: boolean,
): Machine<
  { account: TargetAccount | null; record?: AccountRecord | null } | { error: SerializedError }
> {
  const deadline = started + input.capabilities.visibilityWindowMs;
  for (let round = readAtOnce ? -1 : 0; ; round++) {
    if (round >= 0) {
      const delay = delayWithin(round, yield* now(), deadline);
      if (delay <= 0) return { account: null };
      yield* wait(delay);
    }
    const found = yield* call<AccountLookup>(STEP_OPS.findAccount, {
      connector: input.connector,
      accountId: input.accountId,
    });
    if (!found.ok) return { error: found.error };
    if (found.value.account !== null) {
      return { account: found.value.account, record: found.value.record };
    }
  }
}

function* setEnabled(
  input: AccountStepInput,
  account: TargetAccount,
  enabled: boolean,
): Machine<StepOutcome> {
  const before = yield* enabledBefore(input, account, enabled);
  if ('error' in before) return failed(before.error);
  const effective = 'evidence' in before && enabledChangeIsEffective(before.evidence);
  const outcome = yield* writeEnabled(input, account, enabled, before, effective);
  return withEnabledFindings(input, before, enabled, effective, outcome);
}

function* writeEnabled(
  input: AccountStepInput,
  account: TargetAccount,
  enabled: boolean,
  before: Exclude<EnabledBefore, { error: SerializedError }>,
  effective: boolean,
): Machine<StepOutcome> {
  const record = input.handle.record;
  const written = yield* writePatiently<SetEnabledAnswer>(
    input,
    STEP_OPS.setAccountEnabled,
    { connector: input.connector, account, enabled },
    true,
  );
  const word = enabled ? 'unlocked' : 'locked';
  const changes = effective ? [{ change: `account ${word}` as const }] : [];
  const notices =
    'unknown' in before
      ? [before.unknown]
      : [...before.notices, ...(effective ? [] : [`account was already ${word}`])];
  // Recorded as of the write's answer: reads may lag behind it from then on.
  const answeredAt = yield* now();
  const update: AccountRecordUpdate = { enabled: { value: enabled, at: iso(answeredAt) } };
  const unsettled: AccountRecordUpdate = {
    enabledUnconfirmed: { value: enabled, at: iso(answeredAt) },
  };
  if (!written.ok) {
    const settled = yield* afterFailedAccountWrite(
      input,
      account,
      written.error,
      (seen) => seen?.enabled === enabled,
      {
        what: `${enabled ? 'unlock' : 'lock'} of account "${input.accountId}"`,
        changes,
        notices,
        record: update,
        ...(input.recordsUnconfirmed === true ? { unsettled } : {}),
        // A lagging read may show the state from before the service's last lock or unlock,
        // which may be what this write asks for; before the create there was no account,
        // which no read takes for either.
        ...lagAfter(record?.enabledAt === record?.createdAt ? undefined : record?.enabledAt, input),
      },
    );
    if (settled.ok)
      Object.assign(input.handle, { account: { ...account, enabled }, seenAt: answeredAt });
    return settled;
  }
  input.handle.account = { ...account, enabled };
  input.handle.seenAt = answeredAt;
  // Kept for the histories of requests in flight at an upgrade, recorded when connector A
  // still reported the state its PATCH answer showed: replayed as they ran. No connector
  // reports it now: a server may answer from the request, not from what it stored.
  if (written.value.seen === enabled) return succeeded(changes, notices, update);
  const back = yield* readBack(
    input,
    account,
    (seen) => seen?.enabled === enabled,
    written.readBack,
  );
  if ('error' in back) return failed(back.error, changes, notices, update);
  if (back.confirmed) {
    if (back.reads > 1)
      notices.push(`confirmed after ${describeReads(back.reads, back.elapsedMs)}`);
    return withVerification(succeeded(changes, notices, update), back);
  }
  const action = enabled ? 'unlock' : 'lock';
  const seen =
    back.seen === null
      ? 'no read showed the account'
      : back.seen.enabled === undefined
        ? 'could not tell: the account was read back without its state (no `active`)'
        : `read back ${back.seen.enabled ? 'unlocked' : 'locked'}`;
  const error = notConfirmed(
    input,
    `${action} of account "${input.accountId}" not confirmed: expected ${word}, ` +
      `${seen} after ${describeReads(back.reads, back.elapsedMs)}`,
    { expected: enabled, seen: back.seen?.enabled ?? null, reads: back.reads },
  );
  if (back.seen === null || back.seen.enabled === undefined || !readRefutes(input)) {
    return withVerification(failed(error, changes, notices, update), back);
  }
  // The read shows the account as it was: the target acknowledged a change it did not make,
  // which is no evidence of one (DESIGN invariant 11): neither journaled nor recorded.
  input.handle.account = back.seen;
  return withVerification(failed(error, [], [acknowledgedNotMade(action, input)]), back);
}

/** What a set password's success rests on. */
export const PASSWORD_NOT_READABLE =
  'the target accepted the password; a password cannot be read back, so this rests on its answer alone';

function* setPassword(input: AccountStepInput, account: TargetAccount): Machine<StepOutcome> {
  if (input.passwordSecret === undefined) {
    return failed({
      code: 'REQUEST_INVALID',
      message: `setPassword for account "${input.accountId}" needs a password in the request`,
      retryable: false,
      object: input.accountId,
    });
  }
  const written = yield* writePatiently<PasswordKept | null>(input, STEP_OPS.setPassword, {
    connector: input.connector,
    account,
    passwordSecret: input.passwordSecret,
    discardAfterUse: input.lastPasswordUse,
    intentKey: intentKey(input.requestId, input.step, STEP_OPS.setPassword),
  });
  // No read can show a password: the verdict rests on the target's own answer, and says so
  // (DESIGN invariant 11).
  return written.ok
    ? withPasswordKept(
        succeeded([{ change: 'password set' }], [PASSWORD_NOT_READABLE]),
        written.value ?? {},
      )
    : failed(written.error);
}

/** The step's outcome, saying when the password's secret outlived the write that used it last. */
function withPasswordKept(outcome: StepOutcome, answer: PasswordKept): StepOutcome {
  if (answer.passwordKept !== true) return outcome;
  return {
    ...outcome,
    passwordKept: true,
    notices: [
      ...outcome.notices,
      "the password's secret could not be deleted from the secret store after use: the request deletes it again at its end",
    ],
  };
}

function* deleteAccount(input: AccountStepInput, account: TargetAccount): Machine<StepOutcome> {
  let answer: DeleteAccountAnswer;
  let folded: IoResult<TargetAccount | null> | undefined;
  // A round whose delete may have been applied before its 404 (an answer lost) makes the
  // account's absence this request's, whatever later rounds, sent for lag, answer.
  let ours = false;
  for (let round = 0; ; round++) {
    const sentAt = yield* now();
    const deleted = yield* foldedWrite<DeleteAccountAnswer>(
      input,
      STEP_OPS.deleteAccount,
      {
        connector: input.connector,
        account,
        intentKey: intentKey(input.requestId, input.step, STEP_OPS.deleteAccount, String(round)),
      },
      true,
    );
    if (!deleted.ok) {
      // The request claimed the delete's intent before sending it: gone is this request's.
      const settled = yield* afterFailedAccountWrite(
        input,
        account,
        deleted.error,
        (seen) => seen === null,
        {
          what: `delete of account "${input.accountId}"`,
          changes: [{ change: 'account deleted' }],
          notices: [],
          record: { removed: { targetId: account.id, at: iso(yield* now()) } },
          // A read of an account made within the window may not show it yet: gone, it seems.
          ...lagAfter(input.handle.record?.createdAt, input),
        },
      );
      if (settled.ok) input.handle.account = null;
      return settled;
    }
    answer = deleted.value;
    folded = deleted.readBack;
    ours ||= answer.maybeOurs;
    // A 404 to a delete sent while the account was new may be lag: it may not be visible
    // to writes yet (graph-behaviour.md).
    if (deleteWorthReadingBack(answer) || !mayBeLag(input, sentAt)) break;
    yield* wait(nextRereadDelay(round));
  }
  input.handle.account = null;
  const removed: AccountRecordUpdate = {
    removed: { targetId: account.id, at: iso(yield* now()) },
  };
  if (answer.outcome === 'absent') {
    return ours
      ? succeeded([{ change: 'account deleted' }], [], removed)
      : succeeded([], [`account "${input.accountId}" was already gone`], removed);
  }
  const effective = [{ change: 'account deleted' as const }];
  const back = yield* readBack(input, account, (seen) => seen === null, folded);
  if ('error' in back) return failed(back.error, effective, [], removed);
  if (back.confirmed) return withVerification(succeeded(effective, [], removed), back);
  const error = notConfirmed(
    input,
    `delete of account "${input.accountId}" not confirmed: reads still show it after ${describeReads(back.reads, back.elapsedMs)}`,
    { reads: back.reads },
  );
  if (!readRefutes(input)) return withVerification(failed(error, effective, [], removed), back);
  if (
    input.recordsDeactivation === true &&
    back.seen?.enabled === false &&
    account.enabled !== false
  ) {
    return withVerification(deactivatedInstead(input, account, yield* now()), back);
  }
  // Still there: the target acknowledged a delete it did not make, which is no evidence of
  // one (DESIGN invariant 11): neither journaled nor recorded.
  input.handle.account = back.seen;
  return withVerification(failed(error, [], [acknowledgedNotMade('delete', input)]), back);
}

/**
 * A delete of an account the service holds no link for and a lookup by name did not show.
 * That lookup is no evidence (a read of a name may lag a create; a server may compare
 * `userName` case-sensitively): with `provesAbsence`, "absent" rests on a read that cannot
 * miss the account, or the delete is sent to the account's name and its own answer tells
 * (Graph answers 404 only for a user that is not there). Without it, as before revision 5.
 */
function* deleteUnlinked(
  input: AccountStepInput,
  absence: UnlinkedAbsence | undefined,
): Machine<StepOutcome> {
  if (input.provesAbsence !== true) {
    return succeeded([], [`account "${input.accountId}" is absent: nothing to delete`]);
  }
  if (absence === undefined) {
    return failed(
      accountNotFound(
        input,
        `: no lookup showed it and nothing proved it absent: could not tell whether there is ` +
          `an account to delete`,
      ),
    );
  }
  if (absence.outcome === 'absent') {
    return succeeded(
      [],
      [`account "${input.accountId}" is absent (${absence.evidence}): nothing to delete`],
    );
  }
  if (absence.outcome === 'untold') {
    return failed(
      accountNotFound(
        input,
        `: no lookup showed it and ${absence.reason}: could not tell whether there is an ` +
          `account to delete`,
      ),
    );
  }
  return yield* deleteAccount(input, absence.account);
}

/**
 * A delete the target acknowledged and made a deactivation (a server whose DELETE only sets
 * `active` false, as Slack's does): the step fails, since the account is not deleted, but
 * the lock it was is journaled where a read showed the account enabled before, and recorded,
 * so that nothing (a drift run's restore) takes the leaver's locked account for one to unlock.
 */
function deactivatedInstead(
  input: AccountStepInput,
  account: TargetAccount,
  nowMs: number,
): StepOutcome {
  input.handle.account = { ...account, enabled: false };
  const error = notConfirmed(
    input,
    `delete of account "${input.accountId}" not made: the target answered it as done but only ` +
      `deactivated the account (it reads back locked); delete it on the target, or lock it ` +
      `instead of deleting it on this connector`,
    { expected: 'absent', seen: 'locked' },
  );
  const shownBefore = input.handle.seen && account.enabled === true;
  return failed(
    error,
    shownBefore ? [{ change: 'account locked' }] : [],
    [`the target deactivated account "${input.accountId}" instead of deleting it`],
    { enabled: { value: false, at: iso(nowMs) } },
  );
}

/**
 * Whether a delete's answer leaves its read back (`readBack`) anything to verify: not where
 * the target answered that it did not have the account.
 */
export function deleteWorthReadingBack(answer: DeleteAccountAnswer): boolean {
  return answer.outcome === 'deleted';
}

/** The step also links the account it found without a record. */
function withLink(outcome: StepOutcome, link: AccountRecordUpdate): StepOutcome {
  if (outcome.record?.removed !== undefined) return outcome;
  return { ...outcome, record: { ...link, ...outcome.record } };
}
