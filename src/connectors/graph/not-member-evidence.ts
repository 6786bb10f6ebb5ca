import type { TargetAccount } from '../../domain/account';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import type { MembershipWriteAnswer } from '../connector';
import { failedWriteCall, type FailedWrite } from '../failed-writes';
import { accountErrorContext, type GraphContext } from './graph-context';
import { probeEachGroup } from './graph-groups';
import type { GraphObject } from './graph-objects';
import { segment } from './graph-urls';

/**
 * Removals Graph answered 404 `Request_ResourceNotFound` without its word on the reference
 * (`unsure`, counted `already` in `written`): Entra answers so for a member that is not in
 * the group, for a group that is gone and for a member id it does not know, alike. A read of
 * each group not read just before and a read of the account by its id tell which: with both
 * there, the 404 was about the membership, which is then not in place (the write reached
 * the directory that the 404 came from, so a lagging replica's member list is not asked).
 * Else the call fails, each such removal with an error naming the group and the account
 * (`GROUP_NOT_FOUND`, `ACCOUNT_NOT_FOUND`, or the read's own error when it could not tell);
 * every other answer of the call goes with it (`details.written`), for the journal.
 */
export async function confirmNotMembers(
  context: GraphContext,
  account: TargetAccount,
  written: MembershipWriteAnswer[],
  unsure: readonly MembershipWriteAnswer[],
  read: ReadonlyMap<string, GraphObject>,
): Promise<void> {
  if (unsure.length === 0) return;
  const unread = [...new Set(unsure.map((a) => a.groupId).filter((id) => !read.has(id)))];
  const [groups, user] = await Promise.all([
    probeEachGroup(context, unread),
    accountThere(context, account),
  ]);
  const failures: FailedWrite[] = [];
  for (const answer of unsure) {
    const group = groups.get(answer.groupId);
    const error =
      group instanceof ProvisioningError
        ? groupNotThere(context, account, answer, group)
        : user !== true
          ? accountNotThere(context, account, answer, user)
          : undefined;
    if (error !== undefined) failures.push({ write: answer, error, maybeApplied: false });
  }
  if (failures.length === 0) return;
  const failed = new Set(failures.map((failure) => failure.write));
  throw failedWriteCall(
    failures,
    written.filter((answer) => !failed.has(answer)),
  );
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

function accountNotThere(
  context: GraphContext,
  account: TargetAccount,
  answer: MembershipWriteAnswer,
  read: false | ProvisioningError,
): ProvisioningError {
  const prefix =
    `connector "${context.settings.name}": Graph answered 404 to removing account ` +
    `"${account.accountId}" (id ${account.id}) from group ${groupOf(answer)}`;
  if (read === false) {
    return new ProvisioningError(
      'ACCOUNT_NOT_FOUND',
      `${prefix}, and Graph knows no account by that id: nothing was removed, and whether ` +
        `the account is in the group could not be told`,
      { status: 404, object: account.accountId },
    );
  }
  return new ProvisioningError(
    read.code,
    `${prefix}, and the read of the account that tells whether the account or the ` +
      `membership is missing failed: ${read.message}`,
    {
      retryable: read.retryable,
      ...(read.status === undefined ? {} : { status: read.status }),
      object: account.accountId,
      cause: read,
    },
  );
}

function groupOf(answer: MembershipWriteAnswer): string {
  return describeGroup({ id: answer.groupId, displayName: answer.groupName });
}
