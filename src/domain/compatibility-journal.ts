import type { CompatibilityResult } from './compatibility-result';
import { journalEntryKey, type JournalEntry } from './journal-entry';

/** Who the journal says asked for a compatibility run's changes. */
export const COMPATIBILITY_RUN_REQUESTER = 'compatibility run';

/**
 * The journal entries of the changes a compatibility run made on the target (its test
 * account created, granted and revoked a group, locked, deleted...): the journal lists every
 * effective change the service made, a test's too (spec: the change journal). They go under
 * the run's job id as request id (under its time when it ran outside a job), keyed by the
 * test account too: a retried job is a new run with a new test account, whose entries must
 * not replace the first run's. Recording the same run's entries again changes nothing.
 *
 * @example
 * compatibilityJournalEntries(report); // [{ requestId: 'job-1', change: 'account created', ... }, ...]
 */
export function compatibilityJournalEntries(result: CompatibilityResult): JournalEntry[] {
  const requestId = result.jobId ?? `compatibility-run-${result.at}`;
  return (result.changes ?? []).map((made) => ({
    key: journalEntryKey(`${requestId}/${made.accountId}`, made.step, made.change, made.groupId),
    connector: result.connector,
    accountId: made.accountId,
    requestId,
    step: made.step,
    change: made.change,
    ...(made.groupId === undefined ? {} : { groupId: made.groupId }),
    ...(made.groupName === undefined ? {} : { groupName: made.groupName }),
    at: made.at,
    requestedBy: COMPATIBILITY_RUN_REQUESTER,
    reason: `compatibility run of connector "${result.connector}" with a test account`,
  }));
}
