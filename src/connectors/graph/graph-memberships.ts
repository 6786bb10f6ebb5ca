import type { TargetAccount } from '../../domain/account';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import type { MembershipPlan } from '../../domain/membership-plan';
import type { AppliedMembershipChange, MembershipRead } from '../connector';
import { sendBatch, type BatchRequest } from './graph-batch';
import { accountErrorContext, errorContext, type GraphContext } from './graph-context';
import { mapGraphError, readGraphError, type GraphAnswer } from './graph-error-mapper';
import {
  batchOptions,
  readGroupsById,
  SINGLE_CALL_LIMIT,
  writabilityOptions,
} from './graph-groups';
import { isGroupObject, toGroupLink } from './graph-objects';
import { directoryObjectRef, segment } from './graph-urls';
import { notWritableReason } from './group-writability';

/**
 * Spec: Membership write procedure, steps 1 and 4: every direct group of the account,
 * all pages, groups only (spec 7: never directory roles or administrative units). A plain
 * read: no ConsistencyLevel header, no OData cast (graph-behaviour.md, Eventual consistency).
 */
export async function readMemberships(
  context: GraphContext,
  account: TargetAccount,
): Promise<MembershipRead> {
  const objects = await readWhileReplicating(context, () =>
    context.http.list(
      {
        method: 'GET',
        path: `/users/${segment(account.id)}/memberOf`,
        query: { $select: 'id,displayName', $top: context.settings.pageSize },
      },
      accountErrorContext(context, 'readAccountGroups', account),
    ),
  );
  const groups = objects.filter(isGroupObject).map(toGroupLink);
  return {
    groupIds: groups.map((group) => group.id),
    names: Object.fromEntries(groups.map((group) => [group.id, group.displayName])),
    notices: [],
  };
}

/** Re-reads after a 404: a user just created may not be visible yet (graph-behaviour.md). */
export const NEW_ACCOUNT_READ_DELAYS_MS = [500, 1_000, 2_000];

async function readWhileReplicating<T>(context: GraphContext, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const delay = NEW_ACCOUNT_READ_DELAYS_MS[attempt];
      if (
        !isProvisioningError(error) ||
        error.code !== 'ACCOUNT_NOT_FOUND' ||
        delay === undefined
      ) {
        throw error;
      }
      await context.sleep(delay);
    }
  }
}

/** graph-behaviour.md: remove is `DELETE .../members/{uid}/$ref`; without `/$ref` Graph deletes the USER. */
export function memberRefPath(groupId: string, userId: string): string {
  return `/groups/${segment(groupId)}/members/${segment(userId)}/$ref`;
}

/**
 * Spec: Membership write procedure, steps 2 and 3. Every group of the plan is read first
 * and a group whose members Graph will not write is refused before any write
 * (`GRAPH_GROUP_NOT_WRITABLE`). Then removals, then additions: one call each for a few,
 * JSON `$batch` for more. "Already a member" and "not a member" count as done (DESIGN
 * invariant 4); the re-read of step 4 is what confirms every change.
 */
export async function applyMembershipPlan(
  context: GraphContext,
  account: TargetAccount,
  plan: MembershipPlan,
  names: Record<string, string>,
): Promise<AppliedMembershipChange[]> {
  const ids = [...plan.remove, ...plan.add];
  if (ids.length === 0) return [];
  const groups = await readGroupsById(context, ids);
  const options = await writabilityOptions(context);
  const nameOf = (id: string) => {
    const group = groups.get(id);
    return group === undefined ? (names[id] ?? id) : toGroupLink(group).displayName;
  };
  const refused = ids
    .map((id) => ({ id, reason: notWritableReason(groups.get(id) ?? {}, options) }))
    .filter((entry): entry is { id: string; reason: string } => entry.reason !== undefined);
  if (refused.length > 0) {
    const list = refused.map(
      (entry) =>
        `${describeGroup({ id: entry.id, displayName: nameOf(entry.id) })}: ${entry.reason}`,
    );
    throw new ProvisioningError(
      'GRAPH_GROUP_NOT_WRITABLE',
      `connector "${context.settings.name}": Graph does not let the service write the members of ` +
        `${list.join('; ')}. Nothing was written for account "${account.accountId}"`,
      {
        object: refused.map((entry) => entry.id).join(', '),
        details: {
          groups: refused.map((entry) => ({
            id: entry.id,
            name: nameOf(entry.id),
            reason: entry.reason,
          })),
        },
      },
    );
  }
  const removals = plan.remove.map((id, index) =>
    writeRequest(context, account, id, 'removed', `r${index}`),
  );
  const additions = plan.add.map((id, index) =>
    writeRequest(context, account, id, 'added', `a${index}`),
  );
  const applied: AppliedMembershipChange[] = [];
  const useBatch = ids.length > SINGLE_CALL_LIMIT;
  for (const writes of [removals, additions]) {
    if (writes.length === 0) continue;
    const answers = useBatch
      ? await sendAsBatch(context, writes)
      : await sendOneByOne(context, writes);
    const failures: ProvisioningError[] = [];
    for (const write of writes) {
      const answer = answers.get(write.request.id)!;
      const outcome = writeOutcome(answer, write.change);
      if (outcome !== undefined) {
        applied.push({
          groupId: write.groupId,
          groupName: nameOf(write.groupId),
          change: write.change,
          ...(outcome === 'already' ? { alreadyInPlace: true } : {}),
        });
      } else {
        failures.push(
          mapGraphError(answer, writeErrorContext(context, account, write, nameOf(write.groupId))),
        );
      }
    }
    if (failures.length > 0) throw withApplied(failures, applied);
  }
  return applied;
}

interface PlannedWrite {
  groupId: string;
  change: 'added' | 'removed';
  request: BatchRequest;
}

function writeRequest(
  context: GraphContext,
  account: TargetAccount,
  groupId: string,
  change: 'added' | 'removed',
  id: string,
): PlannedWrite {
  const request: BatchRequest =
    change === 'removed'
      ? { id, method: 'DELETE', url: memberRefPath(groupId, account.id) }
      : {
          id,
          method: 'POST',
          url: `/groups/${segment(groupId)}/members/$ref`,
          body: { '@odata.id': directoryObjectRef(context.settings.graphEndpoint, account.id) },
        };
  return { groupId, change, request };
}

/**
 * graph-behaviour.md: 204 is written; an add answered 400 Request_BadRequest is "already a
 * member" and a remove answered 404 Request_ResourceNotFound or 400 Request_BadRequest is
 * "not a member" (the group itself was read just before): done, but no effective change.
 * Anything else is a failure. Keyed on status and code only.
 */
export function writeOutcome(
  answer: Pick<GraphAnswer, 'status' | 'body'>,
  change: 'added' | 'removed',
): 'written' | 'already' | undefined {
  if (answer.status === 204 || answer.status === 200) return 'written';
  const code = readGraphError(answer.body).code;
  const already =
    change === 'added'
      ? answer.status === 400 && code === 'Request_BadRequest'
      : (answer.status === 404 && code === 'Request_ResourceNotFound') ||
        (answer.status === 400 && code === 'Request_BadRequest');
  return already ? 'already' : undefined;
}

async function sendOneByOne(
  context: GraphContext,
  writes: PlannedWrite[],
): Promise<Map<string, GraphAnswer>> {
  const answers = await Promise.all(
    writes.map(async ({ request }) => {
      const result = await context.http.send({
        method: request.method,
        path: request.url,
        json: request.body,
      });
      return [request.id, result] as const;
    }),
  );
  return new Map(answers);
}

async function sendAsBatch(
  context: GraphContext,
  writes: PlannedWrite[],
): Promise<Map<string, GraphAnswer>> {
  return sendBatch(
    context.http,
    writes.map((write) => write.request),
    batchOptions(context),
    errorContext(context, 'writeMemberships', 'membership writes', context.settings.name),
  );
}

/**
 * The group was read just before the write, so a 404 on an add means the member: a user
 * created moments ago that Graph does not see yet (graph-behaviour.md, Eventual consistency).
 */
function writeErrorContext(
  context: GraphContext,
  account: TargetAccount,
  write: PlannedWrite,
  name: string,
) {
  const group = describeGroup({ id: write.groupId, displayName: name });
  return write.change === 'added'
    ? errorContext(
        context,
        'writeMemberships',
        `account "${account.accountId}" in group ${group}`,
        account.accountId,
        'ACCOUNT_NOT_FOUND',
      )
    : errorContext(
        context,
        'writeMemberships',
        `account "${account.accountId}" in group ${group}`,
        write.groupId,
        'GROUP_NOT_FOUND',
      );
}

/** The first failure, carrying every change already written: the journal must still get them. */
function withApplied(
  failures: ProvisioningError[],
  applied: AppliedMembershipChange[],
): ProvisioningError {
  const first = failures[0]!;
  const more = failures.length > 1 ? ` (and ${failures.length - 1} more failed write(s))` : '';
  return new ProvisioningError(first.code, `${first.message}${more}`, {
    retryable: first.retryable,
    ...(first.status === undefined ? {} : { status: first.status }),
    ...(first.object === undefined ? {} : { object: first.object }),
    details: {
      ...first.details,
      applied,
      failed: failures.map((failure) => ({ code: failure.code, object: failure.object })),
    },
    cause: first,
  });
}
