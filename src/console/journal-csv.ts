import type { JournalEntry } from './api-types';

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
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break. A value a
 * spreadsheet would run as a formula (=, +, -, @, tab, CR first) is prefixed with `'`: group
 * names come from targets, and a CSV opened in a spreadsheet must not run them (OWASP: CSV
 * injection).
 */
export function csvField(value: string | number | undefined): string {
  let text = value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The journal entries as CSV with a header line, CRLF line ends.
 *
 * @example
 * journalCsv([{ at: '2026-11-22T08:00:00Z', connector: 'hr', ... }]);
 */
export function journalCsv(entries: readonly JournalEntry[]): string {
  const lines = [JOURNAL_COLUMNS.join(',')];
  for (const entry of entries) {
    lines.push(JOURNAL_COLUMNS.map((column) => csvField(entry[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
