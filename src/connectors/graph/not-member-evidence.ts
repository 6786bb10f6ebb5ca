import type { TargetAccount } from '../../domain/account';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import type { MembershipWriteAnswer } from '../connector';
import { failedWriteCall, type FailedWrite } from '../failed-writes';
import { accountErrorContext, type GraphContext } from './graph-context';
import { probeEachGroup } from './graph-groups';
import type { GraphObject } from './graph-objects';
import { segment } from './graph-urls';

/** A call's answers once reads judged its removals answered 404 ({@link judgeNotMembers}). */
export interface JudgedRemovals {
  /** The call's answers, each such removal as the reads leave it: `already`, `accountNotFound`. */
  written: MembershipWriteAnswer[];
  /** Such removals the reads could not confirm, each with its error (`maybeApplied`: see below). */
  failures: FailedWrite[];
  /** The groups read before the writes (`read`) and those read here. */
  groups: ReadonlyMap<string, GraphObject>;
}

/**
 * Removals Graph answered 404 `Request_ResourceNotFound` without its word on the reference
 * (`unsure`, counted `already` in `written`): Entra answers so for a member that is not in
 * the group, for a group that is gone and for a member id it does not know, alike. A read of
 * each group not read just before and a read of the account by its id tell which (DESIGN
 * invariant 11), on the success path and on the failure path of a call alike:
 * - group and account there: the 404 was about the membership, which is then not in place
 *   (`already`; the write reached the directory the 404 came from, so a lagging replica's
 *   member list is not asked);
 * - group there, and the read of the account answers 404: Graph does not know the account,
 *   as far as that read tells: `accountNotFound`, nothing removed. A read is served by a
 *   replica that may not have an account created a moment ago (graph-behaviour.md, Eventual
 *   consistency), so this is no verdict on the account: the step machine sends the removal
 *   again on its timer while that may be lag, as it does an add answered so, and the account
 *   is read again with it. Where an earlier attempt of the removal may have been applied (its
 *   answer lost, `maybeOurs`), this 404 may be that attempt's doing: the removal is then one
 *   whose answer was lost (`maybeApplied`), for the step's read-back to tell, so that the
 *   change, if it was this request's, still reaches the journal;
 * - else the removal failed, with an error naming the group and the account
 *   (`GROUP_NOT_FOUND`, or the read's own error when it could not tell): Graph removed
 *   nothing.
 * Nothing here adds a change: `written` keeps only what Graph's answers and these reads say
 * (DESIGN invariant 9).
 */
export async function judgeNotMembers(
  context: GraphContext,
  account: TargetAccount,
  written: readonly MembershipWriteAnswer[],
  unsure: readonly MembershipWriteAnswer[],
  read: ReadonlyMap<string, GraphObject>,
): Promise<JudgedRemovals> {
  if (unsure.length === 0) return { written: [...written], failures: [], groups: read };
  const unread = [...new Set(unsure.map((a) => a.groupId).filter((id) => !read.has(id)))];
  const [groups, user] = await Promise.all([
    probeEachGroup(context, unread),
    accountThere(context, account),
  ]);
  const failures: FailedWrite[] = [];
  const judged = new Map<MembershipWriteAnswer, MembershipWriteAnswer | undefined>();
  for (const answer of unsure) {
    const group = groups.get(answer.groupId);
    const error =
      group instanceof ProvisioningError
        ? groupNotThere(context, account, answer, group)
        : user instanceof ProvisioningError
          ? accountReadFailed(context, account, answer, user)
          : undefined;
    if (error !== undefined) {
      failures.push({ write: answer, error, maybeApplied: false });
      judged.set(answer, undefined);
    } else if (user === false && answer.maybeOurs) {
      failures.push({
        write: answer,
        error: untoldRemoval(context, account, answer),
        maybeApplied: true,
      });
      judged.set(answer, undefined);
    } else if (user === false) {
      judged.set(answer, { ...answer, outcome: 'accountNotFound' });
    }
  }
  return {
    written: written.flatMap((answer) => {
      if (!judged.has(answer)) return [answer];
      const verdict = judged.get(answer);
      return verdict === undefined ? [] : [verdict];
    }),
    failures,
    groups: new Map([
      ...read,
      ...[...groups].flatMap(([id, group]) =>
        group instanceof ProvisioningError ? [] : [[id, group] as const],
      ),
    ]),
  };
}

/**
 * {@link judgeNotMembers} on a call whose writes were all answered: the call's answers and
 * the groups read, or, where the reads could not confirm a removal, its failure
 * (`details.written`: every other answer, for the journal).
 */
export async function confirmNotMembers(
  context: GraphContext,
  account: TargetAccount,
  written: readonly MembershipWriteAnswer[],
  unsure: readonly MembershipWriteAnswer[],
  read: ReadonlyMap<string, GraphObject>,
): Promise<Omit<JudgedRemovals, 'failures'>> {
  const judged = await judgeNotMembers(context, account, written, unsure, read);
  if (judged.failures.length > 0) throw failedWriteCall(judged.failures, judged.written);
  return judged;
}

/** True when a read by id shows the account; false when Graph says it is not there; else the read's error. */
async function accountThere(
  context: GraphContext,
  account: TargetAccount,
): Promise<true | false | ProvisioningError> {
  try {
    const result = await context.http.expect(
      { method: 'GET', path: `/users/${segment(account.id)}`, query: { $select: 'id' } },
      [200, 404],
      accountErrorContext(context, 'readAccounts', account),
    );
    // The transport lets a 404 through only as Graph's own not-found (GraphHttp.expect).
    return result.status === 200;
  } catch (error) {
    if (isProvisioningError(error)) return error;
    throw error;
  }
}

function groupNotThere(
  context: GraphContext,
  account: TargetAccount,
  answer: MembershipWriteAnswer,
  readError: ProvisioningError,
): ProvisioningError {
  const gone = readError.code === 'GROUP_NOT_FOUND';
  return new ProvisioningError(
    readError.code,
    `connector "${context.settings.name}": Graph answered 404 to removing account ` +
      `"${account.accountId}" from group ${groupOf(answer)}, ` +
      (gone
        ? `and the group is gone: nothing was removed`
        : `and the read of the group that tells whether the group or the membership is ` +
          `missing failed: ${readError.message}`),
    {
      retryable: readError.retryable,
      ...(readError.status === undefined ? {} : { status: readError.status }),
      object: answer.groupId,
      cause: readError,
    },
  );
}

function accountReadFailed(
  context: GraphContext,
  account: TargetAccount,
  answer: MembershipWriteAnswer,
  read: ProvisioningError,
): ProvisioningError {
  return new ProvisioningError(
    read.code,
    `connector "${context.settings.name}": Graph answered 404 to removing account ` +
      `"${account.accountId}" (id ${account.id}) from group ${groupOf(answer)}, and the read ` +
      `of the account that tells whether the account or the membership is missing failed: ` +
      `${read.message}`,
    {
      retryable: read.retryable,
      ...(read.status === undefined ? {} : { status: read.status }),
      object: account.accountId,
      cause: read,
    },
  );
}

function untoldRemoval(
  context: GraphContext,
  account: TargetAccount,
  answer: MembershipWriteAnswer,
): ProvisioningError {
  return new ProvisioningError(
    'MEMBERSHIP_READ_UNAVAILABLE',
    `connector "${context.settings.name}": Graph answered 404 to removing account ` +
      `"${account.accountId}" (id ${account.id}) from group ${groupOf(answer)} after an earlier ` +
      `attempt's answer was lost, and a read by id does not show the account (yet): whether ` +
      `that attempt removed it could not be told`,
    {
      // Not for the activity to run again (its 404 would no longer say an attempt was lost):
      // the step's read-back tells, on its timer.
      retryable: false,
      status: 404,
      object: answer.groupId,
      details: {
        maybeApplied: true,
        untold: [{ id: answer.groupId, name: answer.groupName }],
      },
    },
  );
}

function groupOf(answer: MembershipWriteAnswer): string {
  return describeGroup({ id: answer.groupId, displayName: answer.groupName });
}
