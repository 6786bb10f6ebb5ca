import type { DriftFinding } from '../domain/drift-finding';
import { csvText } from './csv';

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
 * The findings as CSV with a header line and CRLF line ends; the evidence lines joined by ` | `.
 *
 * @example
 * driftCsv([finding]); // 'findingId,status,type,...\r\n8204...,open,memberAddedOutside,...\r\n'
 */
export function driftCsv(findings: readonly DriftFinding[]): string {
  return csvText(
    DRIFT_COLUMNS,
    findings.map((finding) => ({
      ...finding,
      restoreRequestId: finding.restore?.requestId,
      evidence: finding.evidence.join(' | '),
    })),
  );
}
