import { journalEntryKey, type JournalEntry } from '../../src/domain/journal-entry';

/**
 * The journal entries of a step of request `req-<accountId>` that added the account to
 * `groups`, recorded at `at`: what a membership step commits with the account's record.
 */
export function grantedEntries(
  connector: string,
  accountId: string,
  step: number,
  groups: string[],
  at: string,
): JournalEntry[] {
  return groups.map((groupId) => ({
    key: journalEntryKey(`req-${accountId}`, step, 'member added', groupId),
    connector,
    accountId,
    requestId: `req-${accountId}`,
    step,
    change: 'member added',
    groupId,
    groupName: `Group ${groupId}`,
    at,
  }));
}
