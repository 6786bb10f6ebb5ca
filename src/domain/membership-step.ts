import type { TargetAccount } from './account';
import { resolveAccount } from './account-lookup';
import { recentGroupWrite, type AccountRecordUpdate } from './account-record';
import type { SerializedError } from './errors';
import type { EffectiveChange } from './journal-entry';
import { describeGroup, type GroupRef } from './group';
import { resolveGroups } from './group-resolution';
import { compareMemberships, membershipMismatch } from './membership-comparison';
import {
  planMembershipWrites,
  removalsToWrite,
  type MembershipAction,
  type MembershipWritePlan,
} from './membership-plan';
import { effectiveChanges, settledChanges, writeMembershipChanges } from './membership-writes';
import type { GroupSelector } from './provisioning-request';
import { call, now, parallel, wait, type IoResult, type Machine } from './step-machine';
import { STEP_OPS, type ReadMembershipsInput } from './step-ops';
import { accountNotFound, iso, type StepContext } from './step-context';
import { failed, succeeded, withVerification, type StepOutcome } from './step-outcome';
import type { MembershipRead, MembershipWriteAnswer } from './target-answers';
import { delayWithin } from './visibility';

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
    if (listed.value.length === 0) return failed(catalogueEmpty(input));
    managed = listed.value;
  }
  const resolved = yield* resolveGroups(input.connector, input.groups, input.lookedUp);
  if ('error' in resolved) return failed(resolved.error);
  const names: Record<string, string> = {};
  for (const group of resolved.groups) names[group.id] = group.displayName;
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
  const read = firstStepAfterCreate(input)
    ? nothingToRead()
    : yield* readMemberships(input, account, Object.keys(plan.expected), leaving(plan));
  if ('error' in read) return failed(read.error);
  Object.assign(names, read.names);
  const seen = new Set(read.groupIds);
  // What the account was a member of before this step: the service's own write within the
  // visibility window, else the read (which may lag that write), else nothing known.
  const stateBefore = (id: string): boolean | undefined =>
    recentGroupWrite(input.handle.record, id, startedAt, input.capabilities.visibilityWindowMs) ??
    (read.visible ? seen.has(id) : undefined);
  const notices = [...read.notices];
  const leftAlone = plan.leftAlone.filter((group) => seen.has(group.id));
  if (leftAlone.length > 0) {
    notices.push(
      `left alone, the service may not write their members: ${leftAlone
        .map((group) => `${describeGroup(group)} (${group.notWritableReason ?? 'not writable'})`)
        .join(', ')}`,
    );
  }

  const ledger: MembershipWriteAnswer[] = [];
  const assigned = input.handle.record?.assignedGroups ?? [];
  const written = yield* writeMembershipChanges(
    input,
    account,
    { remove: removalsToWrite(plan, seen, assigned), add: plan.add },
    groups,
    'write',
  );
  ledger.push(...written.answers);
  const finish = (at: number, error?: SerializedError, answers = ledger): StepOutcome => {
    const changes = effectiveChanges(answers, stateBefore, names);
    const all = [...notices, ...answerNotices(answers, changes, names)];
    const record = recordUpdate(input.action, plan, answers, error === undefined, at);
    return error === undefined
      ? succeeded(changes, all, record)
      : failed(error, changes, all, record);
  };
  if (written.error !== undefined) return finish(yield* now(), written.error);

  const verified = yield* verify(input, account, plan, ledger, groups);
  if ('error' in verified) {
    // A write the target only acknowledged, which the last read back contradicts, is no
    // evidence of a change: neither journaled nor recorded (DESIGN invariant 11).
    const refuted = new Set(verified.refuted ?? []);
    const answers = ledger.filter(
      (answer) => answer.outcome !== 'acknowledged' || !refuted.has(answer.groupId),
    );
    const outcome = finish(yield* now(), verified.error, answers);
    return verified.read === undefined
      ? outcome
      : withVerification(outcome, { ...verified.read, confirmed: false });
  }
  if (verified.reads > 1) notices.push(`verified after ${verified.reads} reads`);
  notices.push(...verified.notices);
  const outcome = finish(yield* now());
  // No read back when every write's own answer confirmed it.
  return verified.reads === 0
    ? outcome
    : withVerification(outcome, { ...verified, confirmed: true });
}

interface ReadOutcome extends MembershipRead {
  /** False when reads do not show the account (yet): nothing could be read. */
  visible: boolean;
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
 * One membership read: one operation, of every direct group for targets that read them all,
 * of the named groups for targets that read named groups only (the connector reads them
 * together). A read that does not find the account (a new account not replicated yet; or a
 * gone one, which the writes will tell) shows nothing: it plans and reports only (DESIGN
 * invariant 9). In `decisive` groups "not a member" decides something: the connector
 * confirms it (`confirmAbsent`).
 */
function* readMemberships(
  input: MembershipStepInput,
  account: TargetAccount,
  groupIds: readonly string[],
  decisive: ReadonlySet<string> = new Set(),
): Machine<ReadOutcome | { error: SerializedError }> {
  const { connector } = input;
  const confirm = (ids: readonly string[]) => {
    const confirmAbsent = ids.filter((id) => decisive.has(id));
    return confirmAbsent.length === 0 ? {} : { confirmAbsent };
  };
  const nothingNamed = input.capabilities.membershipReadScope === 'named' && groupIds.length === 0;
  const inputs: ReadMembershipsInput[] = nothingNamed
    ? []
    : [{ connector, account, groupIds: [...groupIds], ...confirm(groupIds) }];
  const results = yield* parallel<MembershipRead>(STEP_OPS.readMemberships, inputs);
  const read: ReadOutcome = { groupIds: [], names: {}, notices: [], visible: true };
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
  }
  return read;
}

/**
 * Spec steps 4-6: reads back the groups the step verifies until they are as expected, within
 * the visibility window (one read where reads show writes at once). A group that must go
 * and that no write of this step removed (setMemberships: a lagging read hid it) is removed
 * when a re-read shows it: reconciled inside the window, not only re-read.
 */
function* verify(
  input: MembershipStepInput,
  account: TargetAccount,
  plan: MembershipWritePlan,
  ledger: MembershipWriteAnswer[],
  groups: { names: Record<string, string>; writable: ReadonlySet<string> },
): Machine<
  | { reads: number; elapsedMs: number; notices: string[] }
  | {
      error: SerializedError;
      read?: { reads: number; elapsedMs: number };
      /** Groups the last read showed otherwise than the writes asked. */
      refuted?: string[];
    }
> {
  const { names } = groups;
  const confirmed = new Set(
    ledger.filter((answer) => answer.confirmedByWrite === true).map((answer) => answer.groupId),
  );
  const scope = Object.keys(plan.expected).filter((id) => !confirmed.has(id));
  if (scope.length === 0) return { reads: 0, elapsedMs: 0, notices: [] };
  const expected = scope.filter((id) => plan.expected[id] === true);
  const started = yield* now();
  const deadline = started + input.capabilities.visibilityWindowMs;
  // Every group read back is a verdict: present or absent, each decides the step.
  const decisive = new Set(scope);
  for (let round = 0; ; round++) {
    const read = yield* readMemberships(input, account, scope, decisive);
    if ('error' in read) return { error: read.error };
    const readAt = yield* now();
    Object.assign(names, read.names);
    const comparison = compareMemberships(expected, read.groupIds, scope);
    if (comparison.matches) {
      return { reads: round + 1, elapsedMs: readAt - started, notices: read.notices };
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
      if (again.error !== undefined) return { error: again.error };
    }
    const at = yield* now();
    const delay = delayWithin(round, at, deadline);
    if (delay <= 0) {
      return {
        error: membershipMismatch(
          input.connector,
          input.accountId,
          comparison,
          names,
          at - started,
        ),
        read: { reads: round + 1, elapsedMs: at - started },
        // A write made after the last read is contradicted by nothing.
        refuted: [...comparison.missing, ...comparison.unexpected].filter(
          (id) => !remove.includes(id) && !add.includes(id),
        ),
      };
    }
    yield* wait(delay);
  }
}

/** What the answers tell the operator: changes that were already in place. */
function answerNotices(
  ledger: readonly MembershipWriteAnswer[],
  changes: readonly EffectiveChange[],
  names: Record<string, string>,
): string[] {
  const effective = new Set(changes.map((c) => `${c.change}:${c.groupId ?? ''}`));
  const inPlace = new Map<string, string>();
  for (const answer of ledger) {
    const key = `${answer.change === 'added' ? 'member added' : 'member removed'}:${answer.groupId}`;
    if (answer.outcome === 'accountNotFound' || effective.has(key)) continue;
    inPlace.set(
      answer.groupId,
      describeGroup({ id: answer.groupId, displayName: names[answer.groupId] ?? answer.groupName }),
    );
  }
  return inPlace.size === 0
    ? []
    : [`already as requested, nothing changed: ${[...inPlace.values()].join(', ')}`];
}

/**
 * What the service's record learns: the groups it granted and revoked. On failure only the
 * changes the target answered for count.
 */
function recordUpdate(
  action: MembershipAction,
  plan: MembershipWritePlan,
  ledger: readonly MembershipWriteAnswer[],
  verified: boolean,
  at: number,
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
  return {
    ...(granted.length === 0 ? {} : { granted }),
    ...(revoked.length === 0 ? {} : { revoked }),
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
