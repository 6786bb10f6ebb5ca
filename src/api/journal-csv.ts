import type { JournalEntry } from '../domain/journal-entry';
import { csvText } from './csv';

/** The columns of the journal's CSV, in order. */
export const JOURNAL_COLUMNS = [
  'at',
  'connector',
  'accountId',
  'change',
  'groupName',
  'groupId',
  'requestId',
  'step',
  'requestedBy',
  'reason',
  'correlationId',
  'key',
  // Last: a sheet that reads the columns before it by position still finds them there.
  'submittedBy',
] as const satisfies readonly (keyof JournalEntry)[];

/**
 * The journal entries as CSV with a header line and CRLF line ends.
 *
 * @example
 * journalCsv([entry]); // 'at,connector,accountId,...\r\n2026-11-22T08:00:00.000Z,hr,...\r\n'
 */
export function journalCsv(entries: readonly JournalEntry[]): string {
  return csvText(JOURNAL_COLUMNS, entries);
}
