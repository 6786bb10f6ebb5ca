import type { DriftFinding } from '../domain/drift-finding';

/** The columns of the drift report's CSV, in order. */
export const DRIFT_COLUMNS = [
  'findingId',
  'status',
  'type',
  'accountId',
  'targetId',
  'memberName',
  'groupId',
  'groupName',
  'expectedEnabled',
  'observedEnabled',
  'firstSeen',
  'lastConfirmed',
  'closedAt',
  'closedBecause',
  'restoreRequestId',
  'evidence',
] as const;

/**
 * One CSV field (RFC 4180), quoted when it holds a quote, comma or line break. A value a
 * spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading `'`: names
 * come from targets, and a report opened in a spreadsheet must not run them (OWASP: CSV
 * injection).
 */
function field(value: string | boolean | undefined): string {
  let text = value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The findings as CSV with a header line and CRLF line ends; the evidence lines joined by ` | `.
 *
 * @example
 * driftCsv([finding]); // 'findingId,status,type,...\r\n8204...,open,memberAddedOutside,...\r\n'
 */
export function driftCsv(findings: readonly DriftFinding[]): string {
  const lines = [DRIFT_COLUMNS.join(',')];
  for (const finding of findings) {
    const row: Partial<Record<(typeof DRIFT_COLUMNS)[number], string | boolean>> = {
      ...finding,
      restoreRequestId: finding.restore?.requestId,
      evidence: finding.evidence.join(' | '),
    };
    lines.push(DRIFT_COLUMNS.map((column) => field(row[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
