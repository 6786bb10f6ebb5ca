import { subjectDetailsOf, type DriftFinding, type DriftSubject } from './drift-finding';

/**
 * The message reconciliation puts on the `drift-events` queue for every new finding (issue
 * 18), so a governance workflow can react as it does to SailPoint's triggers. Its schema is
 * `DriftEvent` in the OpenAPI document's components. Sent at least once: `findingId` tells a
 * repeated message from a new finding.
 */
export interface DriftEvent extends DriftSubject {
  /** The event's kind and version: consumers branch on it. */
  event: 'drift.found/v1';
  findingId: string;
  connector: string;
  firstSeen: string;
  jobId: string;
  evidence: string[];
}

/** At most this many evidence lines travel in a message (a queue message holds 64 KiB). */
const EVIDENCE_LINES = 10;

/** The event of a new finding. */
export function driftEventOf(finding: DriftFinding): DriftEvent {
  return {
    event: 'drift.found/v1',
    findingId: finding.findingId,
    connector: finding.connector,
    type: finding.type,
    targetId: finding.targetId,
    ...subjectDetailsOf(finding),
    firstSeen: finding.firstSeen,
    jobId: finding.firstJobId,
    evidence: finding.evidence.slice(0, EVIDENCE_LINES).map((line) => line.slice(0, 1000)),
  };
}
