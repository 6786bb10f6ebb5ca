import type { MembershipWriteAnswer } from './target-answers';

/**
 * Whether a membership write was an effective change (DESIGN invariant 9). The write's own
 * answer decides where it tells: `applied` changed it; `already` did not, unless an earlier
 * attempt of the same write may have been applied (a lost answer) and the membership was not
 * so before. A write whose answer never came (`unanswered`, counted only once a read-back
 * shows the change in place) is the same: this request's when it claimed the write's intent
 * before sending (`maybeOurs`) and the membership was not so before. Where the answer does
 * not tell (`acknowledged`), the state before decides.
 * `before` is that state: the service's own write if it made one within the visibility
 * window, else what the read before the writes showed; undefined when neither tells (a new
 * account no read shows yet: a member of nothing).
 *
 * @example
 * isEffectiveMembershipWrite({ outcome: 'already', maybeOurs: true, change: 'added', groupId: 'g', groupName: 'G' }, false); // true
 */
export function isEffectiveMembershipWrite(
  answer: MembershipWriteAnswer,
  before: boolean | undefined,
): boolean {
  const target = answer.change === 'added';
  const needed = before === undefined ? target : before !== target;
  switch (answer.outcome) {
    case 'applied':
      return true;
    case 'already':
    case 'unanswered':
      return answer.maybeOurs && needed;
    case 'acknowledged':
      return needed;
    case 'accountNotFound':
      return false;
  }
}

/** What is known of an account's enabled state before a lock or unlock is written. */
export interface EnabledEvidence {
  /** The state the write sets: true to unlock, false to lock. */
  target: boolean;
  /** The state the service last set, and when (ms). */
  recorded?: { value: boolean; atMs: number };
  /** The state a read showed before the write, and when it read; undefined when no read showed the account. */
  seen?: { value: boolean; atMs: number };
  visibilityWindowMs: number;
}

/**
 * Whether a lock or unlock changes the account: the write's answer does not say (a PATCH
 * answers 204 either way), so the read before is weighed against the service's own record
 * of what it last wrote. A read made less than the visibility window after that write may
 * still show the state before it: then the record wins (DESIGN invariant 9).
 *
 * @example
 * // locked by the service 3 s before a read that still shows it enabled: the unlock is effective
 * enabledChangeIsEffective({ target: true, recorded: { value: false, atMs: 0 }, seen: { value: true, atMs: 3_000 }, visibilityWindowMs: 30_000 }); // true
 */
export function enabledChangeIsEffective(evidence: EnabledEvidence): boolean {
  const { target, recorded, seen } = evidence;
  const readMayLag =
    recorded !== undefined &&
    (seen === undefined || seen.atMs - recorded.atMs < evidence.visibilityWindowMs);
  if (readMayLag) return recorded.value !== target;
  if (seen !== undefined) return seen.value !== target;
  return true;
}
