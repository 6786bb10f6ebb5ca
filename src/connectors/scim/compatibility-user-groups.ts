import type { TargetAccount } from '../../domain/account';
import type { Evidence } from '../../domain/compatibility-result';
import type { UserGroupsVerdict } from '../../domain/user-groups-verdict';
import type { CompatibilitySession } from './compatibility-session';
import type { TestGroup } from './compatibility-groups';
import { FEATURE_REFUSALS } from './membership-check';
import { scimUrl } from './scim-paths';
import { readGroupValues } from './user-groups-check';

/**
 * What the run saw of the user's `groups` attribute (RFC 7643 §4.1.2), checked against the
 * test account, whose one membership the run made and read back:
 * - `complete`: it listed the group after the grant and no longer after the revoke (complete
 *   for one membership: a cap above one group cannot be seen with one);
 * - `incomplete`: it did not list the group the account is in (not kept, or cut short);
 * - `stale`: it still listed the group after a revoke the read-back verified;
 * - `refused`: the server refuses the attribute; `not checked`: no membership to check it by,
 *   or the read failed.
 */
export interface UserGroupsFinding {
  outcome: 'complete' | 'incomplete' | 'stale' | 'refused' | 'not checked';
  note: string;
  evidence: Evidence[];
  /**
   * Whether membership verdicts lean on it on this server: the run's membership reads did not
   * use the members filter (it is refused, ignored or blind), so a member list the server
   * cuts short leaves the attribute the only word on a group it does not show.
   */
  reliedOn?: boolean;
}

/** One read of the test account's `groups`: the groups listed (200), and the call. */
export interface UserGroupsListing {
  groupIds?: Set<string>;
  status: number;
  evidence: Evidence[];
}

/** What the connector does with the attribute, whatever the run saw (user-groups-check.ts). */
const CONNECTOR_RULE =
  'the connector takes a group it lists for a membership, and a group it leaves out for a ' +
  'non-membership only where the list is shorter than the longest it has seen the server ' +
  'return and has never left out a group a member list or the members filter showed';

/** `GET /Users/{id}?attributes=groups`, judged by the run (any status comes back). */
export async function listUserGroups(
  s: CompatibilitySession,
  account: TargetAccount,
): Promise<UserGroupsListing> {
  const url = scimUrl(s.settings.baseUrl, 'Users', account.id, { attributes: 'groups' });
  const { result, evidence } = await s.probe('GET', url);
  return {
    ...(result.status === 200 ? { groupIds: readGroupValues(result.body) } : {}),
    status: result.status,
    evidence,
  };
}

/**
 * Whether the attribute listed what the run made: read after the grant was read back (the
 * account is a member of `group`, and of no other group the run made), and after the revoke
 * where it was read back (`afterRevoke`; undefined where the revoke did not work).
 */
export function judgeUserGroups(
  s: CompatibilitySession,
  group: TestGroup,
  afterGrant: UserGroupsListing,
  afterRevoke: UserGroupsListing | undefined,
  reliedOn: boolean,
): UserGroupsFinding {
  const finding = judge(`group "${group.displayName}"`, group.id, afterGrant, afterRevoke);
  s.note("read the test account's groups", 'succeeded', `${finding.outcome}: ${finding.note}`);
  return { ...finding, reliedOn };
}

function judge(
  name: string,
  groupId: string,
  afterGrant: UserGroupsListing,
  afterRevoke: UserGroupsListing | undefined,
): UserGroupsFinding {
  if (afterGrant.groupIds === undefined) {
    const refused = FEATURE_REFUSALS.includes(afterGrant.status);
    return {
      outcome: refused ? 'refused' : 'not checked',
      note: refused
        ? `the server refuses the user's groups attribute (${afterGrant.status})`
        : `reading the user's groups answered ${afterGrant.status}`,
      evidence: afterGrant.evidence,
    };
  }
  if (!afterGrant.groupIds.has(groupId)) {
    const size = afterGrant.groupIds.size;
    const what = size === 0 ? 'lists no group' : `lists ${size} other group(s) but not ${name}`;
    return {
      outcome: 'incomplete',
      note:
        `the user's groups attribute ${what} for the test account, which the read-back showed ` +
        `is a member of ${name}: it is not complete (not kept, or cut short); ${CONNECTOR_RULE}`,
      evidence: afterGrant.evidence,
    };
  }
  if (afterRevoke === undefined) {
    return {
      outcome: 'complete',
      note:
        `the user's groups attribute listed ${name}, which the run granted; the revoke did not ` +
        `work, so whether it drops a group was not seen; ${CONNECTOR_RULE}`,
      evidence: afterGrant.evidence,
    };
  }
  const evidence = [...afterGrant.evidence, ...afterRevoke.evidence];
  if (afterRevoke.groupIds === undefined) {
    return {
      outcome: 'not checked',
      note: `the user's groups attribute listed ${name} after the grant, and reading it after the revoke answered ${afterRevoke.status}`,
      evidence,
    };
  }
  if (afterRevoke.groupIds.has(groupId)) {
    return {
      outcome: 'stale',
      note:
        `the user's groups attribute still lists ${name} after a revoke the read-back ` +
        `verified: it is not current, and a revoke may end "could not tell" or mismatched`,
      evidence,
    };
  }
  return {
    outcome: 'complete',
    note:
      `the user's groups attribute listed ${name} after the grant and no longer after the ` +
      `revoke; the run made one membership, so a cap above one group cannot be seen: ` +
      CONNECTOR_RULE,
    evidence,
  };
}

/**
 * What the run's finding tells the connector, kept for every worker (ConnectorStates): an
 * `incomplete` attribute (it left out the group the test account was in) is never believed
 * for a non-membership; a `complete` one is the operator's word that ends an earlier cut
 * (a connector that catches it cut again says so again). Other findings change nothing.
 */
export function userGroupsVerdictOf(report: {
  at: string;
  jobId?: string;
  userGroups: UserGroupsFinding;
}): UserGroupsVerdict | undefined {
  const { outcome } = report.userGroups;
  if (outcome !== 'incomplete' && outcome !== 'complete') return undefined;
  const run = `the compatibility run of ${report.at}${report.jobId === undefined ? '' : ` (job ${report.jobId})`}`;
  return {
    verdict: outcome === 'incomplete' ? 'cut' : 'complete',
    why:
      outcome === 'incomplete'
        ? `${run} saw the user's groups attribute leave out the group its test account was ` +
          `in: it does not list every group`
        : `${run} saw the user's groups attribute list the group its test account was in, ` +
          `and drop it after the revoke`,
    at: report.at,
    by: 'compatibility run',
    ...(report.jobId === undefined ? {} : { jobId: report.jobId }),
  };
}
