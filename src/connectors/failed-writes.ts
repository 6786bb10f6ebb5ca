import { ProvisioningError } from '../domain/errors';
import type { FailedMembershipWrite } from '../domain/lost-answer';
import type { MembershipWriteAnswer } from './connector';

/** One membership write that got no "done": its error, and whether it may have been applied all the same. */
export interface FailedWrite {
  write: { groupId: string; change: 'added' | 'removed' };
  error: ProvisioningError;
  maybeApplied: boolean;
}

/**
 * The failure of a membership write call, for every connector: it carries the answers to
 * every write that got one (`details.written`: the journal must still get them) and every
 * failed write (`details.failed`: refused, or maybe applied, which only a read can tell). A
 * refusal is an answer: the call fails by the first refusal, else by the first lost answer,
 * so a 403 next to a 504 is never taken for an outage.
 *
 * @example
 * throw failedWriteCall([{ write: { groupId: 'g1', change: 'added' }, error, maybeApplied: false }], []);
 */
export function failedWriteCall(
  failures: readonly FailedWrite[],
  written: MembershipWriteAnswer[],
): ProvisioningError {
  const first = (failures.find((failure) => !failure.maybeApplied) ?? failures[0]!).error;
  const more = failures.length > 1 ? ` (and ${failures.length - 1} more failed write(s))` : '';
  const failed: FailedMembershipWrite[] = failures.map(({ write, error, maybeApplied }) => ({
    groupId: write.groupId,
    change: write.change,
    code: error.code,
    ...(error.status === undefined ? {} : { status: error.status }),
    message: error.message,
    maybeApplied,
  }));
  return new ProvisioningError(first.code, `${first.message}${more}`, {
    retryable: first.retryable,
    ...(first.status === undefined ? {} : { status: first.status }),
    ...(first.object === undefined ? {} : { object: first.object }),
    details: { ...first.details, written, failed },
    cause: first,
  });
}
