import { createHash } from 'node:crypto';

/** An effective change, as the change journal records it (spec 5, DESIGN invariant 1). */
export type JournalChange =
  | 'account created'
  | 'account updated'
  | 'account locked'
  | 'account unlocked'
  | 'password set'
  | 'account deleted'
  | 'member added'
  | 'member removed';

export interface JournalEntry {
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
  return createHash('sha256')
    .update(JSON.stringify([requestId, step, change, groupId ?? null]))
    .digest('hex')
    .slice(0, 32);
}
