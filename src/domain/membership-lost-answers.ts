import type { AccountRecord } from './account-record';
import type { SerializedError } from './errors';
import { describeGroup } from './group';
import { describeLostAnswer } from './lost-answer';
import type { Verified } from './membership-read-back';
import type { MembershipWriteAnswer } from './target-answers';

/**
 * What the operator learns of writes whose answers were lost: which changes the read-back
 * shows in place (journaled as this request's), which it does not, or that it could not
 * read back at all (DESIGN invariant 11: "could not tell").
 */
export function lostAnswerNotices(
  lost: SerializedError,
  ledger: readonly MembershipWriteAnswer[],
  verified: Verified,
  names: Record<string, string>,
): string[] {
  const unanswered = ledger.filter((answer) => answer.outcome === 'unanswered');
  const shown =
    'error' in verified
      ? (verified.shown ?? new Set<string>())
      : new Set(unanswered.map((answer) => answer.groupId));
  const list = (answers: readonly MembershipWriteAnswer[]) =>
    answers
      .map(
        (a) =>
          `${a.change} ${describeGroup({ id: a.groupId, displayName: names[a.groupId] ?? a.groupName })}`,
      )
      .join(', ');
  const inPlace = unanswered.filter((answer) => shown.has(answer.groupId));
  const notShown = unanswered.filter((answer) => !shown.has(answer.groupId));
  const how = `membership write: ${describeLostAnswer(lost)}`;
  const notices: string[] = [];
  if (inPlace.length > 0) notices.push(`${how}; the read-back shows it in place: ${list(inPlace)}`);
  if (notShown.length === 0) return notices;
  if ('error' in verified && verified.shown === undefined) {
    notices.push(
      `${how}, and reading back failed (${verified.error.code}): could not tell whether it was ` +
        `applied: ${list(notShown)}`,
    );
  } else {
    notices.push(`${how}, and no read-back after it shows it in place: ${list(notShown)}`);
  }
  return notices;
}

/**
 * The error of a step whose lost write no read-back showed: the write's own error, saying
 * what the read-back found (the groups still missing or unexpected) or that it could not read.
 */
export function lostAndUnproven(
  lost: SerializedError,
  verified: Extract<Verified, { error: SerializedError }>,
  unproven: number,
): SerializedError {
  const what = unproven === 1 ? 'the change was' : `${unproven} changes were`;
  if (verified.shown === undefined) {
    return {
      ...lost,
      message:
        `${lost.message}; reading back failed (${verified.error.code}: ${verified.error.message}): ` +
        `could not tell whether ${what} applied`,
    };
  }
  return {
    ...lost,
    message: `${lost.message}; the read-back does not show that ${what} applied: ${verified.error.message}`,
    details: { ...lost.details, ...verified.error.details },
  };
}

/**
 * The groups whose lost write a read made at `readAtMs` cannot show: the service's own last
 * write of that group, less than the visibility window before the read, set the opposite of
 * what this write asks. A lagging replica may still show the state from before that write,
 * which is what this one asks for (DESIGN invariant 9: a read may lag the service's writes).
 */
export function staleForLostWrites(
  ledger: readonly MembershipWriteAnswer[],
  record: AccountRecord | null | undefined,
  readAtMs: number,
  windowMs: number,
): Set<string> {
  const stale = new Set<string>();
  for (const answer of ledger) {
    if (answer.outcome !== 'unanswered') continue;
    const last = record?.groupWrites?.[answer.groupId];
    if (last === undefined || last.member === (answer.change === 'added')) continue;
    if (readAtMs - Date.parse(last.at) < windowMs) stale.add(answer.groupId);
  }
  return stale;
}

/** The error of a step whose lost writes only a read that may lag showed. */
export function lostAndStale(lost: SerializedError, stale: ReadonlySet<string>): SerializedError {
  const what = stale.size === 1 ? 'the change' : `${stale.size} changes`;
  return {
    ...lost,
    message:
      `${lost.message}; the read that shows ${what} came less than the visibility window after ` +
      `the service's own last write of the same group: it may show the state from before that ` +
      `write, so it could not tell whether this one was applied`,
  };
}
