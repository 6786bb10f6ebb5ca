import type { TargetAccount } from '../../domain/account';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { mayHaveBeenApplied } from '../../domain/lost-answer';
import { describeGroup } from '../../domain/group';
import type { GroupLink } from '../../domain/nested-groups';
import type { MembershipWriteOutcome } from '../../domain/target-answers';
import type { MembershipRead, MembershipWriteAnswer } from '../connector';
import { failedWriteCall, type FailedWrite } from '../failed-writes';
import { sendBatchSettled, type BatchRequest } from './graph-batch';
import { accountErrorContext, errorContext, type GraphContext } from './graph-context';
import { mapGraphError, readGraphError, type GraphAnswer } from './graph-error-mapper';
import {
  batchOptions,
  readGroupsById,
  SINGLE_CALL_LIMIT,
  writabilityOptions,
} from './graph-groups';
import { isGroupObject, toGroupLink, type GraphObject } from './graph-objects';
import { directoryObjectRef, segment } from './graph-urls';
import { notWritableReason } from './group-writability';
import { refuseMissingGroups } from './missing-groups';
import { confirmNotMembers, judgeNotMembers } from './not-member-evidence';

/**
 * Spec: Membership write procedure, steps 1 and 4: every direct group of the account,
 * all pages, groups only (spec 7: never directory roles or administrative units). A plain
 * read: no ConsistencyLevel header, no OData cast (graph-behaviour.md, Eventual consistency).
 * A group the app may not read is there by its id, with a notice saying why.
 */
export async function readMemberships(
  context: GraphContext,
  account: TargetAccount,
): Promise<MembershipRead> {
  const groups = await readDirectGroups(context, account);
  return {
    groupIds: groups.map((group) => group.id),
    names: Object.fromEntries(groups.map((group) => [group.id, group.displayName])),
    notices: groups.flatMap((group) =>
      group.notReadable === undefined ? [] : [`group ${group.id}: ${group.notReadable}`],
    ),
  };
}

/** The account's direct groups as links (`notReadable` on those the app may not read). */
export async function readDirectGroups(
  context: GraphContext,
  account: TargetAccount,
): Promise<GroupLink[]> {
  const objects = await context.http.list(
    {
      method: 'GET',
      path: `/users/${segment(account.id)}/memberOf`,
      query: { $select: 'id,displayName', $top: context.settings.pageSize },
    },
    accountErrorContext(context, 'readAccountGroups', account),
  );
  return objects.filter(isGroupObject).map(toGroupLink);
}

/** graph-behaviour.md: remove is `DELETE .../members/{uid}/$ref`; without `/$ref` Graph deletes the USER. */
export function memberRefPath(groupId: string, userId: string): string {
  return `/groups/${segment(groupId)}/members/${segment(userId)}/$ref`;
}

/**
 * Spec: Membership write procedure, steps 2 and 3. Every group the catalogue does not vouch
 * for (`writable`) is read first, and a group whose members Graph will not write is refused
 * before any write (`GROUP_NOT_WRITABLE`). Then removals, then additions: one call for one
 * change, JSON `$batch` for more. Each change gets Graph's own answer (DESIGN invariant 9):
 * 204 applied; "already exist" on add and "do not exist" on remove already so; a removal
 * answered 404 otherwise already so once reads show the group and the account are there, and
 * Graph does not know the member (yet) where the read of the account answers 404, in a call
 * that fails as in one that does not (`judgeNotMembers`); 404 on add: Graph does not know the
 * member (yet), once a read shows the group is there.
 */
export async function writeMemberships(
  context: GraphContext,
  account: TargetAccount,
  changes: { add: readonly string[]; remove: readonly string[] },
  names: Record<string, string>,
  writable: readonly string[] = [],
): Promise<MembershipWriteAnswer[]> {
  const ids = [...changes.remove, ...changes.add];
  if (ids.length === 0) return [];
  const { groups, nameOf } = await nothingSentIfFails(
    checkWritable(context, account, ids, names, writable),
  );
  const removals = changes.remove.map((id, index) =>
    writeRequest(context, account, id, 'removed', `r${index}`),
  );
  const additions = changes.add.map((id, index) =>
    writeRequest(context, account, id, 'added', `a${index}`),
  );
  const written: MembershipWriteAnswer[] = [];
  // Removals answered 404 without Graph's word on the reference: "already" once reads tell.
  const unsure: MembershipWriteAnswer[] = [];
  const useBatch = ids.length > SINGLE_CALL_LIMIT;
  for (const writes of [removals, additions]) {
    if (writes.length === 0) continue;
    // Each write as Graph last answered it; a call or envelope that failed leaves its writes
    // unanswered, and the answers Graph gave still stand (DESIGN invariant 9).
    const { answers, unanswered } = useBatch
      ? await sendAsBatch(context, writes)
      : await sendOneByOne(context, writes);
    const failures: FailedWrite[] = [];
    for (const write of writes) {
      const lost = unanswered.get(write.request.id);
      if (lost !== undefined) {
        failures.push({ write, error: lost, maybeApplied: mayHaveBeenApplied(lost.toJSON()) });
        continue;
      }
      const answer = answers.get(write.request.id)!;
      const outcome = writeOutcome(answer, write.change);
      if (outcome !== undefined) {
        const entry: MembershipWriteAnswer = {
          groupId: write.groupId,
          groupName: nameOf(write.groupId),
          change: write.change,
          outcome: outcome === 'notFound' ? 'already' : outcome,
          maybeOurs: answer.maybeAppliedBefore === true,
        };
        written.push(entry);
        if (outcome === 'notFound') unsure.push(entry);
      } else {
        const error = mapGraphError(
          answer,
          writeErrorContext(context, account, write, nameOf(write.groupId)),
        );
        failures.push({ write, error, maybeApplied: mayHaveBeenApplied(error.toJSON()) });
      }
    }
    if (failures.length > 0) {
      // A removal answered 404 is judged as on the success path, even in a call that failed.
      const judged = await judgeNotMembers(context, account, written, unsure, groups);
      throw failedWriteCall([...failures, ...judged.failures], judged.written);
    }
  }
  const confirmed = await confirmNotMembers(context, account, written, unsure, groups);
  await refuseMissingGroups(context, account, confirmed.written, confirmed.groups);
  return confirmed.written;
}

/**
 * Every group the catalogue does not vouch for (`writable`) is read, and one whose members
 * Graph will not write is refused before any write (`GROUP_NOT_WRITABLE`).
 */
async function checkWritable(
  context: GraphContext,
  account: TargetAccount,
  ids: readonly string[],
  names: Record<string, string>,
  writable: readonly string[],
): Promise<{ groups: ReadonlyMap<string, GraphObject>; nameOf: (id: string) => string }> {
  const vouched = new Set(writable);
  const unchecked = ids.filter((id) => !vouched.has(id));
  const groups =
    unchecked.length === 0
      ? new Map<string, GraphObject>()
      : await readGroupsById(context, unchecked);
  const options = await writabilityOptions(context);
  const nameOf = (id: string) => {
    const group = groups.get(id);
    return group === undefined ? (names[id] ?? id) : toGroupLink(group).displayName;
  };
  const refused = unchecked
    .map((id) => ({ id, reason: notWritableReason(groups.get(id) ?? {}, options) }))
    .filter((entry): entry is { id: string; reason: string } => entry.reason !== undefined);
  if (refused.length > 0) {
    const list = refused.map(
      (entry) =>
        `${describeGroup({ id: entry.id, displayName: nameOf(entry.id) })}: ${entry.reason}`,
    );
    throw new ProvisioningError(
      'GROUP_NOT_WRITABLE',
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
  return { groups, nameOf };
}

/**
 * A failure before any write was sent says so (`details.failed` empty, nothing written): no
 * change of the call can be in place because of it, however the call failed (a 503 reading
 * the groups is no lost write).
 */
async function nothingSentIfFails<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    throw error.withDetails({ written: [], failed: [] });
  }
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
 * Graph's own word that a membership change was in place already, as graph-behaviour.md
 * records it: "One or more added object references already exist ..." (an add of a member)
 * and "One or more removed object references do not exist ..." (a removal of a non-member).
 * Graph answers these with the codes it gives many other refusals (`Request_BadRequest`: a
 * dynamic, mail-enabled or synced group, an invalid id; `Request_ResourceNotFound`: a gone
 * group, an unknown member), so only the words name the reference. Matching them can only
 * make an answer "already"; an answer without them is read (see `writeOutcome`) or refused.
 */
const IN_PLACE_ALREADY = {
  added: /one or more added object references already exist/i,
  removed: /one or more removed object references do not exist/i,
} as const;

/**
 * What Graph's answer to one membership write says (DESIGN invariant 11: "already" only on
 * evidence): 204 is written; an answer saying the reference was already so (see
 * {@link IN_PLACE_ALREADY}) is `already`; an add answered 404 names a member Graph does not
 * know (the group is read to tell, `refuseMissingGroups`); a removal answered 404
 * `Request_ResourceNotFound` otherwise is `notFound`: Entra answers a non-member so, naming
 * the group, exactly as it answers a gone group or an unknown member, so reads must tell
 * (`confirmNotMembers`). Any other answer, a 400 for another reason included, is a failure.
 */
export function writeOutcome(
  answer: Pick<GraphAnswer, 'status' | 'body'>,
  change: 'added' | 'removed',
): MembershipWriteOutcome | 'notFound' | undefined {
  if (answer.status === 204 || answer.status === 200) return 'applied';
  const error = readGraphError(answer.body);
  const saysAlready = IN_PLACE_ALREADY[change].test(error.message ?? '');
  if (change === 'added') {
    if (answer.status === 400 && error.code === 'Request_BadRequest' && saysAlready) {
      return 'already';
    }
    if (answer.status === 404 && error.code === 'Request_ResourceNotFound')
      return 'accountNotFound';
    return undefined;
  }
  if (answer.status === 400 && error.code === 'Request_BadRequest' && saysAlready) return 'already';
  if (answer.status === 404 && error.code === 'Request_ResourceNotFound') {
    return saysAlready ? 'already' : 'notFound';
  }
  return undefined;
}

/** What the writes of one phase got: Graph's answers, and the errors of those left without one. */
interface SentWrites {
  answers: Map<string, GraphAnswer & { maybeAppliedBefore?: boolean }>;
  unanswered: Map<string, ProvisioningError>;
}

async function sendOneByOne(context: GraphContext, writes: PlannedWrite[]): Promise<SentWrites> {
  const settled = await Promise.allSettled(
    writes.map(({ request }) =>
      context.http.send({ method: request.method, path: request.url, json: request.body }),
    ),
  );
  const sent: SentWrites = { answers: new Map(), unanswered: new Map() };
  for (const [index, outcome] of settled.entries()) {
    const id = writes[index]!.request.id;
    if (outcome.status === 'fulfilled') sent.answers.set(id, outcome.value);
    else if (isProvisioningError(outcome.reason)) sent.unanswered.set(id, outcome.reason);
    else throw outcome.reason;
  }
  return sent;
}

async function sendAsBatch(context: GraphContext, writes: PlannedWrite[]): Promise<SentWrites> {
  const { answers, unanswered } = await sendBatchSettled(
    context.http,
    writes.map((write) => write.request),
    batchOptions(context),
    errorContext(context, 'writeMemberships', 'membership writes', context.settings.name),
  );
  return { answers, unanswered: new Map(unanswered.map((entry) => [entry.id, entry.error])) };
}

/** The error context of one membership write: a 404 on a remove means the group is missing. */
function writeErrorContext(
  context: GraphContext,
  account: TargetAccount,
  write: PlannedWrite,
  name: string,
) {
  const group = describeGroup({ id: write.groupId, displayName: name });
  return errorContext(
    context,
    'writeMemberships',
    `account "${account.accountId}" in group ${group}`,
    write.groupId,
    'GROUP_NOT_FOUND',
  );
}
