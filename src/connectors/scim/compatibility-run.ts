import type { ScimConnectorSettings } from './scim-settings';
import { summaryOf, verdictOf } from '../../domain/compatibility-result';
import type { Logger } from '../../domain/logger';
import type { SecretStore } from '../../secrets/secret-store';
import { createTestAccount, tryUserPatches } from './compatibility-account';
import { actionTable } from './compatibility-actions';
import { cleanUp, type Cleanup, type MadeByRun } from './compatibility-cleanup';
import { locateEndpoints } from './compatibility-endpoints';
import type { DeclaredFeatures } from './declared-features';
import { findTestGroup, type GroupFindings } from './compatibility-groups';
import { findLastLogonEvidence } from './compatibility-last-logon';
import { tryNotFoundAnswer } from './compatibility-not-found';
import { tryMemberships } from './compatibility-memberships';
import { judgePoints } from './compatibility-points';
import type { CompatibilityReport } from './compatibility-report';
import { CompatibilitySession } from './compatibility-session';
import type { UserGroupsFinding } from './compatibility-user-groups';

export interface CompatibilityOptions {
  /** The group to grant and revoke; default: the catalogue's first, else a temporary one. */
  groupName?: string;
  /** The job that runs it, kept with the result. */
  jobId?: string;
  logger?: Logger;
  /** When the run ends (default: the real clock). */
  now?: () => Date;
}

/** Point 6 and the last-logon action: a known attribute on the server's users or schemas. */
async function tryLastLogon(s: CompatibilitySession): Promise<void> {
  const found = await s.attempt('look for a last-logon attribute', () =>
    findLastLogonEvidence(s.connector, s.settings),
  );
  if (found.value === undefined) {
    s.check(
      6,
      'last logon',
      undefined,
      `could not look: ${found.error?.message ?? ''}`,
      found.evidence,
    );
    return;
  }
  const { holds, note } = found.value;
  s.check(6, 'last logon', holds, note, found.evidence);
  s.observe(
    'lastLogon',
    holds === true ? 'works' : holds === false ? 'will fail' : 'untested',
    holds === false ? `reads answer "none found": ${note}` : note,
    6,
  );
}

/**
 * What the verdict adds where membership verdicts lean on the user's `groups` attribute (no
 * members filter) and it did not list what the run made: a grant or revoke of a group whose
 * member list does not show the account can then only end "could not tell".
 */
function userGroupsWarning(finding: UserGroupsFinding): string {
  if (finding.reliedOn !== true) return '';
  if (finding.outcome !== 'incomplete' && finding.outcome !== 'stale') return '';
  const what =
    finding.outcome === 'incomplete'
      ? 'did not list the group the test account was in'
      : 'still listed the group after the revoke';
  return (
    `; without the members filter, the user's groups attribute ${what}: grants and revokes ` +
    `of groups whose member list does not show the account will end "could not tell"`
  );
}

/** What the run made, for the cleanup. */
interface Made extends MadeByRun {
  groups?: GroupFindings;
  declared?: DeclaredFeatures;
  userGroups?: UserGroupsFinding;
}

/** The parts of the run after the endpoints were found; the test account is kept for cleanup. */
async function tryEverything(
  s: CompatibilitySession,
  options: CompatibilityOptions,
  made: Made,
): Promise<void> {
  const declared = await locateEndpoints(s);
  if (declared === undefined) return;
  made.declared = declared;
  await tryNotFoundAnswer(s);
  const created = await createTestAccount(s, declared);
  made.account = created.account;
  made.accountMayExist = created.mayExist;
  const account = made.account;
  made.groups = await findTestGroup(s, account, options.groupName);
  const { group } = made.groups;
  if (account !== undefined && group !== undefined) {
    const tried = await tryMemberships(s, account, group);
    made.membershipMayRemain = tried.mayRemain;
    made.userGroups = tried.userGroups;
  } else {
    const why =
      account === undefined
        ? 'not tried: no test account'
        : `not tried: ${made.groups.noGroupBecause ?? 'no group'}`;
    s.check(3, 'member value', undefined, why, []);
    s.check(5, 'group members add', undefined, why, []);
    s.check(5, 'group members remove', undefined, why, []);
    for (const action of ['grant', 'revoke'] as const) {
      if (made.groups.noGroups) {
        s.observe(action, 'will fail', 'the server has no groups (GET /Groups answered 404)');
      } else s.untested(action, why);
    }
  }
  if (account !== undefined) await tryUserPatches(s, account, declared);
  else {
    for (const aspect of ['user attributes', 'password', 'active']) {
      s.check(5, aspect, undefined, 'not tried: no test account', []);
    }
  }
  await tryLastLogon(s);
}

/**
 * The test run with a test account (spec: "create, grant and revoke a group, lock, delete
 * ... shows whether a server fits"). Each compatibility point is judged from what the run
 * tried and saw (DESIGN invariant 11): FITS only when every part of the point was seen to
 * work. Where a setting of the connector makes a point fit (the server's own id as member
 * value, the other remove form, a base URL with the server's prefix), the run tries it and
 * says so. Everything the run creates (the test account, a temporary test group) is removed
 * at the end, even after a failed step, and each removal is checked by a read.
 *
 * @example
 * const report = await runScimCompatibility(settings, secrets);
 */
export async function runScimCompatibility(
  settings: ScimConnectorSettings,
  secrets: SecretStore,
  options: CompatibilityOptions = {},
): Promise<CompatibilityReport> {
  const s = new CompatibilitySession(settings, secrets, options.logger, options.now);
  const made: Made = { accountMayExist: false, membershipMayRemain: false };
  let cleanup: Cleanup;
  try {
    try {
      await tryEverything(s, options, made);
    } finally {
      cleanup = await cleanUp(s, made);
    }
  } finally {
    await s.close();
  }
  const points = judgePoints(s.checks, s.suggestions, {
    ...(s.stopped === undefined ? {} : { stopped: s.stopped }),
    noGroups: s.noGroups,
  });
  const verdict = verdictOf(points);
  const userGroups = made.userGroups ?? {
    outcome: 'not checked',
    note: `not checked: ${s.stopped ?? 'the run made no membership to check it by'}`,
    evidence: [],
  };
  return {
    connector: settings.name,
    at: (options.now?.() ?? new Date()).toISOString(),
    ...(options.jobId === undefined ? {} : { jobId: options.jobId }),
    verdict,
    summary: summaryOf(verdict, points) + userGroupsWarning(userGroups),
    points,
    suggestedSettings: s.suggestions,
    actions: actionTable(
      s,
      `not tried: ${s.stopped ?? 'the run did not get that far (see the steps)'}`,
    ),
    judgedSettings: {
      baseUrl: settings.baseUrl,
      'auth.type': settings.auth.type,
      memberValue: settings.memberValue,
      memberRemoveStyle: settings.memberRemoveStyle,
      emailUpdateStyle: settings.emailUpdateStyle,
      notFoundAnswer: settings.notFoundAnswer,
    },
    baseUrl: settings.baseUrl,
    testAccount: s.testAccount,
    ...(made.declared === undefined ? {} : { declared: made.declared }),
    ...(made.groups?.group === undefined ? {} : { group: made.groups.group }),
    userGroups,
    steps: s.steps,
    changes: s.changes,
    cleanup: cleanup.summary,
    leftBehind: cleanup.leftBehind,
    fits: verdict === 'fits',
  };
}
