import type { ScimConnectorSettings } from './scim-settings';
import type { TargetAccount } from '../../domain/account';
import { isRefusalByTarget } from '../../domain/compatibility-hint';
import type { SerializedError } from '../../domain/errors';
import { refusal } from './compatibility-account';
import type { TestGroup } from './compatibility-groups';
import type { CompatibilitySession } from './compatibility-session';
import { changeMembership, howSeen } from './compatibility-test-objects';
import {
  judgeUserGroups,
  listUserGroups,
  type UserGroupsFinding,
} from './compatibility-user-groups';

type MemberValue = ScimConnectorSettings['memberValue'];
type RemoveStyle = ScimConnectorSettings['memberRemoveStyle'];

const VALUE_NAMES: Record<MemberValue, string> = {
  accountId: 'the account ID',
  scimId: "the server's own user id",
};

/**
 * The server did not take the member value: refused it (400 `invalidValue` and the like) or
 * took the PATCH without the member showing on the read back.
 */
function valueNotTaken(error: SerializedError): boolean {
  return (
    error.code === 'SCIM_INVALID_VALUE' ||
    error.code === 'MEMBERSHIP_MISMATCH' ||
    error.code === 'SCIM_MUTABILITY'
  );
}

/** The remove was refused or not carried out: the other remove form may do. */
function removeNotTaken(error: SerializedError): boolean {
  return valueNotTaken(error) || error.code === 'SCIM_REQUEST_REJECTED';
}

async function grant(
  s: CompatibilitySession,
  account: TargetAccount,
  group: TestGroup,
): Promise<boolean> {
  const configured = s.settings.memberValue;
  const done = await s.attempt(
    `grant group "${group.displayName}" (memberValue: ${configured})`,
    () => changeMembership(s, s.connector, account, 'grant', group.id),
  );
  if (done.error === undefined) {
    s.check(
      3,
      'member value',
      true,
      `${VALUE_NAMES[configured]} was accepted as a member value and ${howSeen(done.value)}`,
      done.evidence,
    );
    s.check(
      5,
      'group members add',
      true,
      `PATCH add on members was applied and ${howSeen(done.value)}`,
      done.evidence,
    );
    s.observe(
      'grant',
      'works',
      `PATCH add with ${VALUE_NAMES[configured]} as member value was applied and ${howSeen(done.value)}`,
      3,
    );
    return true;
  }
  if (!valueNotTaken(done.error)) {
    const patchRefused = done.error.code === 'SCIM_PATCH_UNSUPPORTED';
    s.check(
      3,
      'member value',
      undefined,
      `no member value could be tried: ${done.error.message}`,
      done.evidence,
    );
    // The PATCH was sent, but no read could tell whether it was applied.
    const unread = done.error.code === 'MEMBERSHIP_READ_UNAVAILABLE';
    s.check(
      5,
      'group members add',
      unread ? undefined : refusal(done.error),
      `${unread ? 'PATCH add was sent, but no read could tell whether it was applied' : 'PATCH add on members'}: ${done.error.message}`,
      done.evidence,
    );
    s.observe(
      'grant',
      isRefusalByTarget(done.error) ? 'will fail' : 'untested',
      unread
        ? `no read of the server tells whether the account is a member (${group.temporary ? 'an empty group' : 'this group'}): ${done.error.message}`
        : `PATCH add: ${done.error.message}`,
      patchRefused ? 5 : undefined,
    );
    return false;
  }
  s.check(
    3,
    'member value',
    false,
    `${VALUE_NAMES[configured]} was not taken as a member value: ${done.error.message}`,
    done.evidence,
  );
  s.observe(
    'grant',
    'will fail',
    `${VALUE_NAMES[configured]} is not taken as a member value: ${done.error.message}`,
    3,
  );

  const other: MemberValue = configured === 'accountId' ? 'scimId' : 'accountId';
  const setting = { setting: 'memberValue', value: other };
  const retry = await s.attempt(`grant group "${group.displayName}" (memberValue: ${other})`, () =>
    changeMembership(s, s.connectorWith({ memberValue: other }), account, 'grant', group.id),
  );
  if (retry.error !== undefined) {
    s.check(
      3,
      'member value',
      false,
      `${VALUE_NAMES[other]} was not taken either: ${retry.error.message}`,
      retry.evidence,
      setting,
    );
    s.check(
      5,
      'group members add',
      undefined,
      'PATCH add was never applied: no member value was taken',
      retry.evidence,
    );
    return false;
  }
  s.suggest({
    ...setting,
    point: 3,
    tried: true,
    reason: `${VALUE_NAMES[other]} was accepted as a member value and ${howSeen(retry.value)}, where ${VALUE_NAMES[configured]} was not`,
  });
  s.check(
    3,
    'member value',
    true,
    `${VALUE_NAMES[other]} was accepted as a member value and ${howSeen(retry.value)}`,
    retry.evidence,
    setting,
  );
  s.check(
    5,
    'group members add',
    true,
    `PATCH add on members was applied and ${howSeen(retry.value)} (memberValue: ${other})`,
    retry.evidence,
  );
  s.observe(
    'grant',
    'works',
    `PATCH add with ${VALUE_NAMES[other]} as member value was applied and ${howSeen(retry.value)}`,
    3,
  );
  s.use({ memberValue: other });
  return true;
}

async function revoke(
  s: CompatibilitySession,
  account: TargetAccount,
  group: TestGroup,
): Promise<boolean> {
  const configured = s.settings.memberRemoveStyle;
  const done = await s.attempt(
    `revoke group "${group.displayName}" (memberRemoveStyle: ${configured})`,
    () => changeMembership(s, s.connector, account, 'revoke', group.id),
  );
  if (done.error === undefined) {
    const note = `PATCH remove (${configured}) was applied and ${howSeen(done.value)}`;
    s.check(5, 'group members remove', true, note, done.evidence);
    s.observe('revoke', 'works', note, 5);
    return true;
  }
  s.check(
    5,
    'group members remove',
    refusal(done.error),
    `PATCH remove (${configured}): ${done.error.message}`,
    done.evidence,
  );
  s.observe(
    'revoke',
    isRefusalByTarget(done.error) ? 'will fail' : 'untested',
    `PATCH remove (${configured}): ${done.error.message}`,
    5,
  );
  if (!removeNotTaken(done.error)) return false;

  const other: RemoveStyle = configured === 'pathFilter' ? 'valueArray' : 'pathFilter';
  const setting = { setting: 'memberRemoveStyle', value: other };
  const retry = await s.attempt(
    `revoke group "${group.displayName}" (memberRemoveStyle: ${other})`,
    () =>
      changeMembership(
        s,
        s.connectorWith({ memberRemoveStyle: other }),
        account,
        'revoke',
        group.id,
      ),
  );
  if (retry.error !== undefined) {
    s.check(
      5,
      'group members remove',
      refusal(retry.error),
      `PATCH remove (${other}) failed too: ${retry.error.message}`,
      retry.evidence,
      setting,
    );
    return false;
  }
  const note = `PATCH remove (${other}) was applied and ${howSeen(retry.value)}`;
  s.suggest({ ...setting, point: 5, tried: true, reason: `${note}, where ${configured} was not` });
  s.check(5, 'group members remove', true, note, retry.evidence, setting);
  s.observe('revoke', 'works', note, 5);
  s.use({ memberRemoveStyle: other });
  return true;
}

/**
 * Points 3 and 5 on groups, through the service's own membership procedure: grant (PATCH
 * add, read back) and revoke (PATCH remove, read back). A member value the server does not
 * take is tried again with the other `memberValue`, a remove it refuses with the other
 * `memberRemoveStyle`; a setting seen to work is suggested and used from then on. Answers
 * whether the test account may still be a member (a revoke that did not work), and whether
 * the user's `groups` attribute listed the membership the run made (and dropped it).
 */
export async function tryMemberships(
  s: CompatibilitySession,
  account: TargetAccount,
  group: TestGroup,
): Promise<{ mayRemain: boolean; userGroups: UserGroupsFinding }> {
  if (!(await grant(s, account, group))) {
    const why = 'not tried: the grant failed';
    s.check(5, 'group members remove', undefined, why, []);
    s.untested('revoke', why);
    const note = `not checked: the grant failed, so the run knows no membership to check it by`;
    // A PATCH that failed may still have been applied.
    return { mayRemain: true, userGroups: { outcome: 'not checked', note, evidence: [] } };
  }
  // The user's groups, checked against the one membership the run made and read back;
  // verdicts lean on them where the grant's reads could not use the members filter.
  const reliedOn = s.membershipCheck?.kind !== 'filter';
  const afterGrant = await listUserGroups(s, account);
  const revoked = await revoke(s, account, group);
  const afterRevoke = revoked ? await listUserGroups(s, account) : undefined;
  return {
    mayRemain: !revoked,
    userGroups: judgeUserGroups(s, group, afterGrant, afterRevoke, reliedOn),
  };
}
