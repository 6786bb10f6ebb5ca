import type { AccountRecord } from './account-record';
import type { DriftSubject } from './drift-finding';
import type { AccountRecheck } from './target-view';

/**
 * What a second read says of a subject the first read showed (issue 18: "every finding is
 * confirmed by a second read before it is stored"): `confirmed` when it shows the same drift,
 * `refuted` when it shows none (the first read lagged, or the drift was undone), `unknown`
 * when it could not tell.
 */
export type DriftVerdict = 'confirmed' | 'refuted' | 'unknown';

/**
 * Judges a subject by a second read of its account and the service's record as it is after
 * that read. A state finding takes the state the second read saw.
 *
 * @example
 * confirmDrift(
 *   { type: 'memberAddedOutside', accountId: 'ada', targetId: 'u1', groupId: 'g2' },
 *   record, // assignedGroups: ['g1']
 *   { targetId: 'u1', memberOf: { g2: true }, evidence: ['GET /users/u1/memberOf'] },
 * ); // { verdict: 'confirmed', subject: { ... } }
 */
export function confirmDrift(
  subject: DriftSubject,
  record: AccountRecord | undefined,
  recheck: AccountRecheck | undefined,
): { verdict: DriftVerdict; subject: DriftSubject } {
  const same = { subject };
  if (recheck === undefined) return { verdict: 'unknown', ...same };
  if (subject.type === 'unlinkedMember') {
    if (record !== undefined && record.targetId !== '') return { verdict: 'refuted', ...same };
    return { verdict: membershipVerdict(recheck, subject.groupId, true), ...same };
  }
  if (record === undefined || record.targetId !== subject.targetId) {
    return { verdict: 'unknown', ...same };
  }
  switch (subject.type) {
    case 'accountDeletedOutside':
      return { verdict: verdictOf(recheck.exists, false), ...same };
    case 'accountStateChangedOutside': {
      if (recheck.exists === false) return { verdict: 'refuted', ...same };
      if (recheck.enabled === undefined || record.enabled === undefined) {
        return { verdict: 'unknown', ...same };
      }
      if (recheck.enabled === record.enabled) return { verdict: 'refuted', ...same };
      return {
        verdict: 'confirmed',
        subject: { ...subject, expectedEnabled: record.enabled, observedEnabled: recheck.enabled },
      };
    }
    case 'memberAddedOutside':
      if (record.assignedGroups.includes(subject.groupId ?? '')) {
        return { verdict: 'refuted', ...same };
      }
      return { verdict: membershipVerdict(recheck, subject.groupId, true), ...same };
    case 'memberRemovedOutside':
      if (!record.assignedGroups.includes(subject.groupId ?? '')) {
        return { verdict: 'refuted', ...same };
      }
      return { verdict: membershipVerdict(recheck, subject.groupId, false), ...same };
  }
}

function membershipVerdict(
  recheck: AccountRecheck,
  groupId: string | undefined,
  member: boolean,
): DriftVerdict {
  if (recheck.exists === false) return member ? 'refuted' : 'unknown';
  return verdictOf(groupId === undefined ? undefined : recheck.memberOf[groupId], member);
}

function verdictOf(seen: boolean | undefined, drifted: boolean): DriftVerdict {
  if (seen === undefined) return 'unknown';
  return seen === drifted ? 'confirmed' : 'refuted';
}
