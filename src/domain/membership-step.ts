import type { TargetAccount } from './account';
import { resolveAccount } from './account-lookup';
import { readRefutes } from './account-write-verdicts';
import { recentGroupWrite, type AccountRecordUpdate } from './account-record';
import type { SerializedError } from './errors';
import type { EffectiveChange } from './journal-entry';
import { describeGroup, type GroupRef } from './group';
import { planGoneRoles } from './gone-roles';
import { renamedOnTarget } from './renamed-groups';
import { resolveGroups } from './group-resolution';
import { foundInMembershipStep, lostWritesFoundBefore } from './membership-found-later';
import {
  lostAndStale,
  lostAndUnproven,
  lostAnswerNotices,
  staleForLostWrites,
} from './membership-lost-answers';
import {
  planMembershipWrites,
  removalsToWrite,
  type MembershipAction,
  type MembershipWritePlan,
} from './membership-plan';
import { foldedReadBack, readMemberships, verify, type ReadOutcome } from './membership-read-back';
import {
  effectiveChanges,
  refusalOf,
  settledChanges,
  writeMembershipChanges,
} from './membership-writes';
import type { GroupSelector } from './provisioning-request';
import { call, now, type IoResult, type Machine } from './step-machine';
import { STEP_OPS } from './step-ops';
import { accountNotFound, iso, type StepContext } from './step-context';
import { failed, succeeded, withVerification, type StepOutcome } from './step-outcome';
import type { MembershipWriteAnswer } from './target-answers';

export interface MembershipStepInput extends StepContext {
  action: MembershipAction;
  groups: readonly GroupSelector[];
  /** The role catalogue's answer for `groups`, when the driver looked them up already. */
  lookedUp?: IoResult<(GroupRef | null)[]>;
}

/**
 * The spec's membership write procedure (Membership write procedure, steps 1-6) as a step
 * machine: resolve the named groups, read the current memberships (1: to plan and report,
 * never to cancel a write), write removals (2) and additions (3), then read back (4) and
 * re-read (5) until the named groups (setMemberships: the writable managed groups) are as
 * requested or the visibility window has passed, removing again what a re-read shows still
 * there; else fail naming the missing and unexpected groups (6).
 */
export function* membershipStep(input: MembershipStepInput): Machine<StepOutcome> {
  const resolved = yield* resolveAccount(input);
  if ('error' in resolved) return failed(resolved.error);
  const outcome =
    resolved.account === null
      ? failed(accountNotFound(input))
      : yield* changeMemberships(input, resolved.account);
  if (resolved.record === undefined) return outcome;
  return { ...outcome, record: { ...resolved.record, ...outcome.record } };
}

function* changeMemberships(
  input: MembershipStepInput,
  account: TargetAccount,
): Machine<StepOutcome> {
  let managed: GroupRef[] = [];
  if (input.action === 'setMemberships') {
    const listed = yield* call<GroupRef[]>(STEP_OPS.listManagedGroups, {
      connector: input.connector,
    });
    if (!listed.ok) return failed(listed.error);
    // Reconciling against no catalogue would grant and never revoke: refused before any write.
    if (listed.value.every((group) => group.goneSince !== undefined)) {
      return failed(catalogueEmpty(input));
    }
    managed = listed.value;
  }
  const resolved = yield* resolveGroups(input.connector, input.groups, input.lookedUp);
  if ('error' in resolved) return failed(resolved.error);
  const names: Record<string, string> = {};
  for (const group of resolved.groups) names[group.id] = group.displayName;
  // As the service knew the named groups: the reads below name them as the target does now.
  const known = resolved.groups.map((group) => ({ ...group }));
  for (const group of managed) names[group.id] ??= group.displayName;
  const plan = planMembershipWrites(input.action, resolved.groups, managed);
  if (plan.refused.length > 0) return failed(notWritable(input, plan.refused));
  const groups = {
    names,
    writable: new Set(
      [...resolved.groups, ...managed].filter((g) => g.writable === true).map((g) => g.id),
    ),
  };

  const startedAt = yield* now();
  const readBefore = !firstStepAfterCreate(input);
  const read = !readBefore
    ? nothingToRead()
    : yield* readMemberships(
        input,
        account,
        Object.keys(plan.expected),
        decisiveBefore(input, plan),
      );
  if ('error' in read) return failed(read.error);
  Object.assign(names, read.names);
  const seen = new Set(read.groupIds);
  const absenceUnproven = new Set(read.unproven ?? []);
  // What the account was a member of before this step: the service's own write within the
  // visibility window, else the read (which may lag that write) where the target vouches
  // for it, else nothing known.
  const stateBefore = (id: string): boolean | undefined =>
    recentGroupWrite(input.handle.record, id, startedAt, input.capabilities.visibilityWindowMs) ??
    (read.visible && !absenceUnproven.has(id) ? seen.has(id) : undefined);
  const notices = [...read.notices];
  // Earlier requests' lost writes the read before shows in place, or not applied.
  const foundBefore = lostWritesFoundBefore(input, readBefore, read, plan, startedAt);
  notices.push(...foundBefore.notices);
  const leftAlone = plan.leftAlone.filter((group) => seen.has(group.id));
  if (leftAlone.length > 0) {
    notices.push(
      `left alone, the service may not write their members: ${leftAlone
        .map((group) => `${describeGroup(group)} (${group.notWritableReason ?? 'not writable'})`)
        .join(', ')}`,
    );
  }

  // A group whose membership is not known may hold the account: its removal is written too.
  const assigned = [
    ...(input.handle.record?.assignedGroups ?? []),
    ...(input.handle.record?.unconfirmedGroups ?? []),
  ];
  const gone = planGoneRoles(plan, {
    named: resolved.groups,
    seen,
    readAll: input.capabilities.membershipReadScope === 'all',
    read: readBefore && read.visible,
    assigned,
  });
  notices.push(...gone.notices);

  const ledger: MembershipWriteAnswer[] = [];
  const written = yield* writeMembershipChanges(
    input,
    account,
    { remove: removalsToWrite(plan, seen, assigned, absenceUnproven), add: plan.add },
    groups,
    'write',
    foldedReadBack(input, plan, read.absenceVouched === true),
  );
  ledger.push(...written.answers);
  const finish = (
    at: number,
    error?: SerializedError,
    answers = ledger,
    unconfirmed: readonly MembershipWriteAnswer[] = [],
  ): StepOutcome => {
    const changes = effectiveChanges(answers, stateBefore, names);
    const all = [
      ...renamedOnTarget(known, names),
      ...notices,
      ...answerNotices(answers, changes, names, absenceUnproven),
    ];
    const recordsUnconfirmed = input.recordsUnconfirmed === true;
    const record = recordUpdate(
      input.action,
      plan,
      answers,
      error === undefined,
      at,
      recordsUnconfirmed ? unconfirmed : [],
    );
    const found = foundInMembershipStep(input, foundBefore, answers, at, {
      record,
      lost: recordsUnconfirmed ? unconfirmed : [],
      stateBefore,
      names,
    });
    all.push(...found.notices);
    const outcome =
      error === undefined
        ? succeeded(changes, all, found.record)
        : failed(error, changes, all, found.record);
    return found.foundLater.length === 0 ? outcome : { ...outcome, foundLater: found.foundLater };
  };
  // A write refused, or never sent, ends the step. One whose answer was lost may have been
  // applied: the read-back tells (scim-interop.md: "answer lost after the write was applied"),
  // and where others were refused it reads back only those, and the step fails by the refusal.
  const refused = refusalOf(written);
  if (refused !== undefined && written.lost === undefined) return finish(yield* now(), refused);
  // Revision 1 read nothing back after a failed write: the step failed with its error, on
  // the answers the target gave.
  if (written.error !== undefined && input.replaysRevision1 === true) {
    const answered = ledger.filter((answer) => answer.outcome !== 'unanswered');
    return finish(yield* now(), written.error, answered);
  }

  const verifyFrom = yield* now();
  const scope = refused === undefined ? plan : onlyUnanswered(plan, ledger);
  const verified = yield* verify(
    input,
    account,
    scope,
    ledger,
    groups,
    written.readBack,
    read.absenceVouched === true,
  );
  const lost = written.lost ?? verified.lost;
  // Lost writes a read may show only because it lags the service's own last write.
  const stale = staleForLostWrites(
    ledger,
    input.handle.record,
    verifyFrom + ('error' in verified ? (verified.read?.elapsedMs ?? 0) : verified.elapsedMs),
    input.capabilities.visibilityWindowMs,
  );
  if (lost !== undefined) notices.push(...lostAnswerNotices(lost, ledger, verified, names));
  if (lost !== undefined && stale.size > 0 && !('error' in verified)) {
    const answers = ledger.filter((a) => a.outcome !== 'unanswered' || !stale.has(a.groupId));
    const untold = ledger.filter((a) => !answers.includes(a));
    const outcome = finish(yield* now(), refused ?? lostAndStale(lost, stale), answers, untold);
    return withVerification(outcome, { ...verified, confirmed: false });
  }
  if ('error' in verified) {
    // A write the target only acknowledged, which the last read back contradicts, is no
    // evidence of a change: neither journaled nor recorded; nor is one whose answer was lost
    // and that the last read back does not show (DESIGN invariant 11).
    // Nor is one the last read back could not tell about (`untold`): its group is not known.
    const refuted = new Set(verified.refuted ?? []);
    const untold = new Set(verified.untold ?? []);
    const shown = new Set([...(verified.shown ?? [])].filter((id) => !stale.has(id)));
    const answers = ledger.filter((answer) =>
      answer.outcome === 'unanswered'
        ? shown.has(answer.groupId)
        : answer.outcome !== 'acknowledged' ||
          (!refuted.has(answer.groupId) && !untold.has(answer.groupId)),
    );
    // An acknowledged write, or one whose answer was lost, to a group the read could not
    // tell about: neither shown nor refuted, its membership is not known.
    const notTold = ledger.filter((a) => !answers.includes(a) && untold.has(a.groupId));
    const unproven = ledger.filter(
      (a) => a.outcome === 'unanswered' && !answers.includes(a) && !untold.has(a.groupId),
    );
    const error =
      refused ??
      (lost === undefined || unproven.length === 0
        ? verified.error
        : lostAndUnproven(lost, verified, unproven.length));
    // Where reads show writes at once, a read that does not show a lost write shows it was
    // not applied; elsewhere (or with no read made) its membership is not known.
    const refutedByRead = readRefutes(input) && verified.read !== undefined;
    const outcome = finish(yield* now(), error, answers, [
      ...(refutedByRead ? [] : unproven),
      ...notTold,
    ]);
    return verified.read === undefined
      ? outcome
      : withVerification(outcome, { ...verified.read, confirmed: false });
  }
  if (verified.reads > 1) notices.push(`verified after ${verified.reads} reads`);
  notices.push(...verified.notices);
  const outcome = finish(yield* now(), refused);
  // No read back when every write's own answer confirmed it.
  return verified.reads === 0
    ? outcome
    : withVerification(outcome, { ...verified, confirmed: true });
}

/** The plan's read-back narrowed to the groups whose write answers were lost. */
function onlyUnanswered(
  plan: MembershipWritePlan,
  ledger: readonly MembershipWriteAnswer[],
): MembershipWritePlan {
  const lost = new Set(ledger.filter((a) => a.outcome === 'unanswered').map((a) => a.groupId));
  return {
    ...plan,
    expected: Object.fromEntries(Object.entries(plan.expected).filter(([id]) => lost.has(id))),
  };
}

/**
 * Whether the read before the writes can be left out: the account was created by this
 * request, so it is a member of nothing but what the request granted since (the service's
 * own record says which), and the target's write answers tell whether each change was in
 * place (a read of a new account could only fail to show it, graph-behaviour.md).
 */
function firstStepAfterCreate(input: MembershipStepInput): boolean {
  return (
    input.handle.createdHere === true &&
    input.capabilities.membershipWritesSayIfInPlace &&
    (input.handle.record?.assignedGroups ?? []).length === 0
  );
}

/** The state before of an account created by this request: a member of nothing. */
function nothingToRead(): ReadOutcome {
  return { groupIds: [], names: {}, notices: [], visible: true };
}

/**
 * The groups the step takes the account out of: before the writes, "not a member" there
 * decides whether a removal is written (setMemberships) and whether one is journaled.
 */
function leaving(plan: MembershipWritePlan): Set<string> {
  return new Set(Object.keys(plan.expected).filter((id) => plan.expected[id] === false));
}

/**
 * The groups whose "not a member" the read before decides something in: those the step
 * leaves, and those of the record's lost writes (a lost revoke found applied, a lost grant
 * found not applied, judged on that absence: lost-writes.ts), so that the connector says it
 * only where it can vouch for it.
 */
function decisiveBefore(input: StepContext, plan: MembershipWritePlan): Set<string> {
  const decisive = leaving(plan);
  for (const write of input.handle.record?.lostWrites ?? []) decisive.add(write.groupId);
  return decisive;
}

/**
 * What the answers tell the operator: changes that were already in place, and removals from
 * groups whose state before no read could vouch for (`unproven`), acknowledged without a
 * word on it: whether they changed anything could not be told, and they are not journaled.
 */
function answerNotices(
  ledger: readonly MembershipWriteAnswer[],
  changes: readonly EffectiveChange[],
  names: Record<string, string>,
  unproven: ReadonlySet<string>,
): string[] {
  const effective = new Set(changes.map((c) => `${c.change}:${c.groupId ?? ''}`));
  const inPlace = new Map<string, string>();
  const untold = new Map<string, string>();
  for (const answer of ledger) {
    const key = `${answer.change === 'added' ? 'member added' : 'member removed'}:${answer.groupId}`;
    if (answer.outcome === 'accountNotFound' || effective.has(key)) continue;
    const described = describeGroup({
      id: answer.groupId,
      displayName: names[answer.groupId] ?? answer.groupName,
    });
    const told = answer.outcome === 'already' || !unproven.has(answer.groupId);
    (told ? inPlace : untold).set(answer.groupId, described);
  }
  return [
    ...(inPlace.size === 0
      ? []
      : [`already as requested, nothing changed: ${[...inPlace.values()].join(', ')}`]),
    ...(untold.size === 0
      ? []
      : [
          `removal sent, but whether the account was a member before could not be told (the ` +
            `server's member list may be cut short), so no change is journaled for: ` +
            [...untold.values()].join(', '),
        ]),
  ];
}

/**
 * What the service's record learns: the groups it granted and revoked. On failure only the
 * changes the target answered for count; those whose answer was lost and that no read
 * confirmed or refuted (`unconfirmed`) are marked not known.
 */
function recordUpdate(
  action: MembershipAction,
  plan: MembershipWritePlan,
  ledger: readonly MembershipWriteAnswer[],
  verified: boolean,
  at: number,
  unconfirmed: readonly MembershipWriteAnswer[],
): AccountRecordUpdate {
  const settled = settledChanges(ledger);
  const granted = plan.add.filter((id) => verified || settled.has(`added:${id}`));
  const leaving = action === 'setMemberships' && verified ? plan.removeIfPresent : [];
  const revoked = [
    ...new Set([
      ...plan.remove.filter((id) => verified || settled.has(`removed:${id}`)),
      ...leaving,
      ...plan.removeIfPresent.filter((id) => settled.has(`removed:${id}`)),
    ]),
  ];
  const unknown = [...new Set(unconfirmed.map((answer) => answer.groupId))];
  return {
    ...(granted.length === 0 ? {} : { granted }),
    ...(revoked.length === 0 ? {} : { revoked }),
    ...(unknown.length === 0 ? {} : { unconfirmedGroups: unknown }),
    ...(granted.length + revoked.length === 0 ? {} : { groupsAt: iso(at) }),
  };
}

function notWritable(input: StepContext, groups: readonly GroupRef[]): SerializedError {
  const list = groups.map(
    (group) => `${describeGroup(group)}: ${group.notWritableReason ?? 'members not writable'}`,
  );
  return {
    code: 'GROUP_NOT_WRITABLE',
    message:
      `connector "${input.connector}": the service may not write the members of ${list.join('; ')}. ` +
      `Nothing was written for account "${input.accountId}"`,
    retryable: false,
    object: groups.map((group) => group.id).join(', '),
    details: {
      groups: groups.map((group) => ({
        id: group.id,
        name: group.displayName,
        reason: group.notWritableReason ?? 'members not writable',
      })),
    },
  };
}

/**
 * setMemberships reconciles the account against the connector's role catalogue (the managed
 * groups): with none imported yet it would grant the named groups and revoke nothing.
 */
function catalogueEmpty(input: StepContext): SerializedError {
  return {
    code: 'CATALOGUE_EMPTY',
    message:
      `the role catalogue of connector "${input.connector}" is empty: import it first ` +
      `(POST /api/connectors/${encodeURIComponent(input.connector)}/imports). setMemberships ` +
      `reconciles account "${input.accountId}" against it; nothing was written`,
    retryable: false,
    object: input.connector,
  };
}
