import type { OrchestrationContext } from 'durable-functions';
import type {
  AppliedMembershipChange,
  ConnectorCapabilities,
  MembershipRead,
} from '../../connectors/connector';
import { membershipMismatch, nextVerificationDelay } from '../../connectors/membership-change';
import type { TargetAccount } from '../../domain/account';
import { isProvisioningError, type SerializedError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import { compareMemberships } from '../../domain/membership-comparison';
import { planMembershipChange, type MembershipPlan } from '../../domain/membership-plan';
import type { GroupSelector } from '../../domain/provisioning-request';
import type { StepChange } from '../../domain/request-report';
import type { ActivityResult } from '../activity-result';
import { ACTIVITIES } from '../names';
import { callActivities, callActivity, waitFor, type Step } from './activity-calls';
import { failed, succeeded, type StepOutcome } from './step-outcome';

export interface MembershipStepInput {
  connector: string;
  account: TargetAccount;
  type: 'grant' | 'revoke' | 'setMemberships';
  groups: GroupSelector[];
  capabilities: ConnectorCapabilities;
}

/**
 * The spec's membership write procedure as orchestration steps: resolve the named groups,
 * read the current memberships (step 1), plan only effective changes, remove (2), add (3),
 * then read back (4) and re-read on a durable timer (5) until the state matches or the
 * connector's visibility window has passed, then fail naming missing and unexpected
 * groups (6).
 */
export function* membershipStep(
  context: OrchestrationContext,
  input: MembershipStepInput,
): Step<StepOutcome> {
  const { connector, account, capabilities } = input;
  const resolved = yield* resolveGroups(context, connector, input.groups);
  if ('error' in resolved) return failed(resolved.error);
  const names: Record<string, string> = {};
  for (const group of resolved.groups) names[group.id] = group.displayName;
  const named = resolved.groups.map((group) => group.id);

  let grant = input.type === 'revoke' ? [] : named;
  let revoke = input.type === 'revoke' ? named : [];
  if (input.type === 'setMemberships') {
    const managed = yield* callActivity<GroupRef[]>(context, ACTIVITIES.listManagedGroups, {
      connector,
    });
    if (!managed.ok) return failed(managed.error);
    for (const group of managed.value) names[group.id] ??= group.displayName;
    grant = named;
    revoke = managed.value.map((group) => group.id).filter((id) => !named.includes(id));
  }
  const scope = [...new Set([...grant, ...revoke])];

  const current = yield* readMemberships(context, input, scope);
  if ('error' in current) return failed(current.error);
  Object.assign(names, current.read.names);
  let plan: MembershipPlan;
  try {
    plan = planMembershipChange(current.read.groupIds, { grant, revoke });
  } catch (error) {
    if (isProvisioningError(error)) return failed(error.toJSON());
    throw error;
  }
  const notices = [...current.read.notices];
  if (plan.unchanged.length > 0) {
    notices.push(
      `already as requested, not written: ${plan.unchanged.map((id) => names[id] ?? id).join(', ')}`,
    );
  }
  if (plan.add.length === 0 && plan.remove.length === 0) return succeeded([], notices);

  // Spec steps 2 and 3: removals first, then additions; each activity one write call.
  const applied: AppliedMembershipChange[] = [];
  for (const phase of [
    { remove: plan.remove, add: [] as string[] },
    { remove: [] as string[], add: plan.add },
  ]) {
    const chunks = chunk(
      [...phase.remove, ...phase.add],
      capabilities.membershipWriteBatchSize,
    ).map((ids) => ({
      connector,
      account,
      add: ids.filter((id) => phase.add.includes(id)),
      remove: ids.filter((id) => phase.remove.includes(id)),
      // A copy: `names` grows later, and an activity input must not change after scheduling.
      names: { ...names },
    }));
    const results = yield* callActivities<AppliedMembershipChange[]>(
      context,
      ACTIVITIES.applyMembershipChanges,
      chunks,
    );
    for (const result of results) {
      if (result.ok) applied.push(...result.value);
      // A write call that failed in part says what it did write (details.applied): journaled too.
      else applied.push(...partlyApplied(result.error));
    }
    const failure = results.find((result) => !result.ok);
    if (failure !== undefined && !failure.ok) {
      return failed(failure.error, effectiveChanges(applied), notices);
    }
  }
  for (const change of applied) names[change.groupId] = change.groupName;
  const changes = effectiveChanges(applied);
  const inPlace = applied.filter((change) => change.alreadyInPlace === true);
  if (inPlace.length > 0) {
    notices.push(
      `found already in place at write time: ${inPlace.map((c) => c.groupName).join(', ')}`,
    );
  }

  const unconfirmed = applied
    .filter((change) => change.confirmedByWrite !== true)
    .map((c) => c.groupId);
  if (unconfirmed.length === 0) return succeeded(changes, notices);
  const verifyScope = capabilities.membershipReadScope === 'named' ? unconfirmed : [];
  const started = context.df.currentUtcDateTime.getTime();
  for (let round = 0; ; round++) {
    const read = yield* readMemberships(context, input, verifyScope);
    if ('error' in read) return failed(read.error, changes, notices);
    Object.assign(names, read.read.names);
    const comparison = compareMemberships(
      plan.expected,
      read.read.groupIds,
      capabilities.membershipReadScope === 'named' ? verifyScope : undefined,
    );
    if (comparison.matches) {
      if (round > 0) notices.push(`verified after ${round + 1} reads`);
      return succeeded(changes, [...notices, ...read.read.notices]);
    }
    const elapsed = context.df.currentUtcDateTime.getTime() - started;
    const delay = Math.min(
      nextVerificationDelay(round),
      capabilities.membershipVisibilityWindowMs - elapsed,
    );
    if (delay <= 0) {
      const mismatch = membershipMismatch(connector, account, comparison, names, elapsed);
      return failed(mismatch.toJSON(), changes, notices);
    }
    yield* waitFor(context, delay);
  }
}

/**
 * Resolves every named group: the role catalogue in one read, then the target for names
 * the catalogue does not know; all that cannot be found are named in one error.
 */
function* resolveGroups(
  context: OrchestrationContext,
  connector: string,
  selectors: readonly GroupSelector[],
): Step<{ groups: GroupRef[] } | { error: SerializedError }> {
  const known = yield* callActivity<(GroupRef | null)[]>(context, ACTIVITIES.lookUpRoles, {
    connector,
    selectors,
  });
  if (!known.ok) return { error: known.error };
  const missing = selectors.filter((_, index) => known.value[index] === null);
  const results = yield* callActivities<GroupRef>(
    context,
    ACTIVITIES.resolveGroup,
    missing.map((selector) => ({ connector, selector })),
  );
  const failures = results.flatMap((result) => (result.ok ? [] : [result.error]));
  if (failures.length === 0) {
    const groups = [
      ...known.value.filter((group): group is GroupRef => group !== null),
      ...results.flatMap((result) => (result.ok ? [result.value] : [])),
    ];
    return { groups: [...new Map(groups.map((group) => [group.id, group])).values()] };
  }
  const [first] = failures;
  if (failures.length === 1 || failures.some((failure) => failure.code !== first?.code)) {
    return { error: first as SerializedError };
  }
  return {
    error: {
      ...(first as SerializedError),
      message: failures.map((failure) => failure.message).join('; '),
      object: failures.map((failure) => failure.object ?? '').join(', '),
    },
  };
}

/**
 * One membership read: a single call for connectors that read all direct groups, one
 * call per group for connectors that can read named groups only.
 */
function* readMemberships(
  context: OrchestrationContext,
  input: MembershipStepInput,
  groupIds: readonly string[],
): Step<{ read: MembershipRead } | { error: SerializedError }> {
  const { connector, account } = input;
  const inputs =
    input.capabilities.membershipReadScope === 'named'
      ? groupIds.map((id) => ({ connector, account, groupIds: [id] }))
      : [{ connector, account, groupIds: [...groupIds] }];
  const results: ActivityResult<MembershipRead>[] = yield* callActivities<MembershipRead>(
    context,
    ACTIVITIES.readMemberships,
    inputs,
  );
  const read: MembershipRead = { groupIds: [], names: {}, notices: [] };
  for (const result of results) {
    if (!result.ok) return { error: result.error };
    read.groupIds.push(...result.value.groupIds);
    Object.assign(read.names, result.value.names);
    read.notices.push(...result.value.notices);
  }
  return { read };
}

function partlyApplied(error: SerializedError): AppliedMembershipChange[] {
  const applied = error.details?.applied;
  return Array.isArray(applied) ? (applied as AppliedMembershipChange[]) : [];
}

function effectiveChanges(applied: readonly AppliedMembershipChange[]): StepChange[] {
  return applied
    .filter((change) => change.alreadyInPlace !== true)
    .map((change) => ({
      change: change.change === 'added' ? 'member added' : 'member removed',
      groupId: change.groupId,
      groupName: change.groupName,
    }));
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) chunks.push(items.slice(i, i + size));
  return chunks;
}
