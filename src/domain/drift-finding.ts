/**
 * What reconciliation finds when it compares a target with what the service assigned there
 * (issue 18): drift made outside the service, and members the service does not know.
 */
export const DRIFT_TYPES = [
  'memberAddedOutside',
  'memberRemovedOutside',
  'accountDeletedOutside',
  'accountStateChangedOutside',
  'unlinkedMember',
] as const;

export type DriftType = (typeof DRIFT_TYPES)[number];

/** Whether a value names a drift type. */
export function isDriftType(value: unknown): value is DriftType {
  return typeof value === 'string' && (DRIFT_TYPES as readonly string[]).includes(value);
}

/** Types that concern one membership (a group and a member). */
export function isMembershipDrift(type: DriftType): boolean {
  return (
    type === 'memberAddedOutside' || type === 'memberRemovedOutside' || type === 'unlinkedMember'
  );
}

/**
 * What a finding is about. Its identity across runs is the type, the account (the linked
 * account's ID; for an unlinked member its target id) and the group.
 */
export interface DriftSubject {
  type: DriftType;
  /** The account ID the service links (every type but `unlinkedMember`). */
  accountId?: string;
  /** The target's id of the account or member (SCIM: its id when the read showed one). */
  targetId: string;
  /** Membership types: the managed group. */
  groupId?: string;
  groupName?: string;
  /** `unlinkedMember`: the member's name on the target (userName, userPrincipalName). */
  memberName?: string;
  /** `accountStateChangedOutside`: the state the service set last, and the state seen. */
  expectedEnabled?: boolean;
  observedEnabled?: boolean;
}

/** The parts of a subject that may be absent. */
export type DriftSubjectDetails = Omit<DriftSubject, 'type' | 'targetId'>;

/**
 * The details a value holds, only those set: a stored row or a queue message carries no
 * `undefined` field. The one copy of them for the finding's row and its event.
 */
export function subjectDetailsOf(source: DriftSubjectDetails): DriftSubjectDetails {
  return {
    ...(source.accountId === undefined ? {} : { accountId: source.accountId }),
    ...(source.groupId === undefined ? {} : { groupId: source.groupId }),
    ...(source.groupName === undefined ? {} : { groupName: source.groupName }),
    ...(source.memberName === undefined ? {} : { memberName: source.memberName }),
    ...(source.expectedEnabled === undefined ? {} : { expectedEnabled: source.expectedEnabled }),
    ...(source.observedEnabled === undefined ? {} : { observedEnabled: source.observedEnabled }),
  };
}

/** A finding as the drift report keeps it: never deleted, closed once a later run no longer finds it. */
export interface DriftFinding extends DriftSubject {
  findingId: string;
  connector: string;
  status: 'open' | 'closed';
  /** ISO times: the run that found it, the last run that confirmed it, the run that closed it. */
  firstSeen: string;
  lastConfirmed: string;
  closedAt?: string;
  /** The reconciliation jobs behind those times. */
  firstJobId: string;
  lastJobId: string;
  closedJobId?: string;
  /** What the verdict rests on: the reads that showed it (DESIGN invariant 11). */
  evidence: string[];
  /** Why it was closed: what the later run saw. */
  closedBecause?: string;
  /** The provisioning request a restore turned it into, and when. */
  restore?: { requestId: string; at: string };
}

/** The identity of a subject across runs: one open finding at most per key. */
export function driftKey(
  subject: Pick<DriftSubject, 'type' | 'accountId' | 'targetId' | 'groupId'>,
): string {
  const who =
    subject.type === 'unlinkedMember' ? subject.targetId : (subject.accountId ?? subject.targetId);
  return [subject.type, who, subject.groupId ?? ''].join('\u0000');
}

/** One line for messages and notices: "memberAddedOutside: ada in Sales (g1)". */
export function describeDrift(subject: DriftSubject): string {
  const who =
    subject.type === 'unlinkedMember'
      ? `${subject.memberName ?? subject.targetId} (${subject.targetId})`
      : `"${subject.accountId ?? subject.targetId}"`;
  const group =
    subject.groupId === undefined
      ? ''
      : ` in ${subject.groupName === undefined || subject.groupName === subject.groupId ? subject.groupId : `${subject.groupName} (${subject.groupId})`}`;
  return `${subject.type}: ${who}${group}`;
}
