import { hash } from 'node:crypto';
import { requestContextOf, type RequestContext } from './request-context';

/** The effective changes the change journal records (spec 5, DESIGN invariant 1). */
export const JOURNAL_CHANGES = [
  'account created',
  'account updated',
  'account locked',
  'account unlocked',
  'password set',
  'account deleted',
  'member added',
  'member removed',
] as const;
export type JournalChange = (typeof JOURNAL_CHANGES)[number];

/** One effective change, with the request's context: who asked, why, under which case. */
export interface JournalEntry extends RequestContext {
  /** Derived from request, step and change: a replayed or retried write upserts the same entry. */
  key: string;
  connector: string;
  accountId: string;
  requestId: string;
  /** Position of the step in the request (0-based). */
  step: number;
  change: JournalChange;
  groupId?: string;
  groupName?: string;
  /** ISO time of the orchestration when the change was recorded (deterministic on replay). */
  at: string;
  /**
   * A change whose answer was lost and that no read showed in its own step, found in place
   * later (lost-writes.ts): what found it ('request "r2" step 0: the read before its
   * writes'), and when (ISO). `at` stays its own step's end.
   */
  foundBy?: string;
  foundAt?: string;
}

/**
 * The journal key of a change: the same request, step and change always give the same key,
 * so replays and retries never duplicate an entry.
 *
 * @example
 * journalEntryKey('req-1', 2, 'member added', 'g-42'); // 'a3f1...' (32 hex characters)
 */
export function journalEntryKey(
  requestId: string,
  step: number,
  change: JournalChange,
  groupId?: string,
): string {
  return sha256Hex(JSON.stringify([requestId, step, change, groupId ?? null])).slice(0, 32);
}

/** What a step changed, as its report lists it (before it is stamped into journal entries). */
export interface EffectiveChange {
  change: JournalChange;
  groupId?: string;
  groupName?: string;
}

/**
 * The journal entries of one step's effective changes, stamped with the orchestration's
 * time and the request's context: keyed by request, step and change, so a replay or retry
 * upserts the same entries.
 *
 * @example
 * journalEntriesOf({ requestId: 'r1', connector: 'hr', accountId: 'ada', correlationId: 'CHG-42' }, 0, [{ change: 'account created' }], at);
 */
export function journalEntriesOf(
  request: { requestId: string; connector: string; accountId: string } & RequestContext,
  step: number,
  changes: readonly EffectiveChange[],
  at: string,
): JournalEntry[] {
  return changes.map((change) => ({
    key: journalEntryKey(request.requestId, step, change.change, change.groupId),
    connector: request.connector,
    accountId: request.accountId,
    requestId: request.requestId,
    step,
    change: change.change,
    ...(change.groupId === undefined ? {} : { groupId: change.groupId }),
    ...(change.groupName === undefined ? {} : { groupName: change.groupName }),
    ...requestContextOf(request),
    at,
  }));
}

/**
 * The key under which a write operation records its intent before writing: the same
 * request, step and write always give the same key, so a second run of the same write (a
 * retried activity) finds the first one's record (DESIGN invariant 1).
 *
 * @example
 * intentKey('req-1', 2, 'writeMemberships', 'r0', 'g-1,g-2');
 */
export function intentKey(requestId: string, step: number, ...parts: string[]): string {
  return sha256Hex(JSON.stringify([requestId, step, ...parts])).slice(0, 40);
}

/**
 * One-shot hashing: orchestrations compute these keys again on every replay, and a Hash
 * object per key costs about three times as much.
 */
function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
