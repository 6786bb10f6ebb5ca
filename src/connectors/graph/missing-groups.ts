import type { TargetAccount } from '../../domain/account';
import { ProvisioningError } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import type { MembershipWriteAnswer } from '../connector';
import { failedWriteCall, type FailedWrite } from '../failed-writes';
import type { GraphContext } from './graph-context';
import { probeEachGroup } from './graph-groups';
import type { GraphObject } from './graph-objects';

/**
 * A 404 to an add names a member Graph does not know, or a group that is gone (one the
 * catalogue vouched for, so not read before the writes): a read of each such group tells
 * which (a removal left `accountNotFound` by `judgeNotMembers` had its group read there).
 * When every such group is there, the answers stay `accountNotFound` (the step machine
 * writes them again while the account may still replicate). Else the call fails, and each
 * write that got no "done" says why with its own code: `GROUP_NOT_FOUND` where its group is
 * gone, `ACCOUNT_NOT_FOUND` where its group is there, the read's own error where the read
 * could not tell. Graph answered each of them 404, so none was applied; every other answer
 * of the call goes with the error (`details.written`), for the journal.
 */
export async function refuseMissingGroups(
  context: GraphContext,
  account: TargetAccount,
  written: MembershipWriteAnswer[],
  read: ReadonlyMap<string, GraphObject>,
): Promise<void> {
  const unknown = written.filter((answer) => answer.outcome === 'accountNotFound');
  const unread = [...new Set(unknown.map((a) => a.groupId).filter((id) => !read.has(id)))];
  if (unread.length === 0) return;
  const groups = await probeEachGroup(context, unread);
  if (![...groups.values()].some((group) => group instanceof ProvisioningError)) return;
  const failures = unknown.map((answer): FailedWrite & { rank: number } => {
    const group = groups.get(answer.groupId);
    if (!(group instanceof ProvisioningError)) {
      return {
        write: answer,
        error: accountUnknown(context, account, answer),
        maybeApplied: false,
        rank: 2,
      };
    }
    if (group.code === 'GROUP_NOT_FOUND') {
      return { write: answer, error: group, maybeApplied: false, rank: 0 };
    }
    return {
      write: answer,
      error: couldNotTell(context, account, answer, group),
      maybeApplied: false,
      rank: 1,
    };
  });
  // The call fails by its most certain cause: a gone group, then a read that failed.
  failures.sort((a, b) => a.rank - b.rank);
  throw failedWriteCall(
    failures.map(({ write, error, maybeApplied }) => ({ write, error, maybeApplied })),
    written.filter((answer) => answer.outcome !== 'accountNotFound'),
  );
}

function accountUnknown(
  context: GraphContext,
  account: TargetAccount,
  answer: MembershipWriteAnswer,
): ProvisioningError {
  const write = answer.change === 'added' ? 'adding it to' : 'removing it from';
  return new ProvisioningError(
    'ACCOUNT_NOT_FOUND',
    `connector "${context.settings.name}": Graph does not know account "${account.accountId}" ` +
      `as a member: it answered 404 to ${write} group ${groupOf(answer)}, which is there`,
    { status: 404, object: account.accountId },
  );
}

function couldNotTell(
  context: GraphContext,
  account: TargetAccount,
  answer: MembershipWriteAnswer,
  readError: ProvisioningError,
): ProvisioningError {
  return new ProvisioningError(
    readError.code,
    `connector "${context.settings.name}": Graph answered 404 to adding account ` +
      `"${account.accountId}" to group ${groupOf(answer)}, and the read of the group that tells ` +
      `whether the group or the account is missing failed: ${readError.message}`,
    {
      retryable: readError.retryable,
      ...(readError.status === undefined ? {} : { status: readError.status }),
      object: answer.groupId,
      cause: readError,
    },
  );
}

function groupOf(answer: MembershipWriteAnswer): string {
  return describeGroup({ id: answer.groupId, displayName: answer.groupName });
}
