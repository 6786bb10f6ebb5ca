import type { DriftFinding } from './drift-finding';

/**
 * The message reconciliation puts on the `drift-events` queue for every new finding (issue
 * 18), so a governance workflow can react as it does to SailPoint's triggers. Its schema is
 * `DriftEvent` in the OpenAPI document's components. Sent at least once: `findingId` tells a
 * repeated message from a new finding.
 */
export interface DriftEvent {
  /** The event's kind and version: consumers branch on it. */
  event: 'drift.found/v1';
  findingId: string;
  connector: string;
  type: DriftFinding['type'];
  accountId?: string;
  targetId: string;
  groupId?: string;
  groupName?: string;
  memberName?: string;
  expectedEnabled?: boolean;
  observedEnabled?: boolean;
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
    ...(finding.accountId === undefined ? {} : { accountId: finding.accountId }),
    targetId: finding.targetId,
    ...(finding.groupId === undefined ? {} : { groupId: finding.groupId }),
    ...(finding.groupName === undefined ? {} : { groupName: finding.groupName }),
    ...(finding.memberName === undefined ? {} : { memberName: finding.memberName }),
    ...(finding.expectedEnabled === undefined ? {} : { expectedEnabled: finding.expectedEnabled }),
    ...(finding.observedEnabled === undefined ? {} : { observedEnabled: finding.observedEnabled }),
    firstSeen: finding.firstSeen,
    jobId: finding.firstJobId,
    evidence: finding.evidence.slice(0, EVIDENCE_LINES).map((line) => line.slice(0, 1000)),
  };
}
