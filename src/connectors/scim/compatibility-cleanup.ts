import type { TargetAccount } from '../../domain/account';
import { isRefusalByTarget } from '../../domain/compatibility-hint';
import type { TestGroup } from './compatibility-groups';
import type { CompatibilitySession } from './compatibility-session';
import { changeAccount, deleteTestGroup, memberValuesOf } from './compatibility-test-objects';

/** Something the run created and could not remove: the operator removes it by hand. */
export interface LeftBehind {
  kind: 'account' | 'group' | 'membership';
  name: string;
  id?: string;
  detail: string;
}

/** What the run made: the test account (or whether it may exist), its group, a membership it may have left. */
export interface MadeByRun {
  account?: TargetAccount;
  accountMayExist: boolean;
  groups?: { group?: TestGroup };
  membershipMayRemain: boolean;
}

export interface Cleanup {
  /** One line: what was removed, or what is left behind. */
  summary: string;
  leftBehind: LeftBehind[];
}

async function removeAccount(
  s: CompatibilitySession,
  made: MadeByRun,
  removed: string[],
  left: LeftBehind[],
): Promise<TargetAccount | undefined> {
  const name = `test account "${s.testAccount}"`;
  const known = made.account;
  // The create's answer may have been lost after the server created it: look it up.
  const lookup =
    known === undefined && made.accountMayExist
      ? await s.attempt('look for the test account', () => s.connector.findAccount(s.testAccount))
      : undefined;
  const account = known ?? lookup?.value;
  if (account === undefined) {
    if (lookup?.error !== undefined) {
      left.push({
        kind: 'account',
        name: s.testAccount,
        detail: `could not be looked up: ${lookup.error.message}`,
      });
    } else {
      s.note('delete the test account', 'skipped', 'it was never created');
      removed.push('nothing to remove: the test account was not created');
    }
    return undefined;
  }
  const deleted = await s.attempt('delete the test account', () =>
    changeAccount(s, s.connector, account, 'delete'),
  );
  if (deleted.error === undefined) {
    s.observe(
      'delete',
      'works',
      'DELETE /Users/{id} removed the test account, and a read no longer finds it',
    );
    removed.push(`${name} removed (deleted, and a read no longer finds it)`);
  } else {
    s.observe(
      'delete',
      isRefusalByTarget(deleted.error) ? 'will fail' : 'untested',
      `DELETE /Users/{id}: ${deleted.error.message}`,
    );
    left.push({
      kind: 'account',
      name: s.testAccount,
      id: account.id,
      detail: deleted.error.message,
    });
  }
  return account;
}

/** After a revoke that did not work: the group must not list the deleted account any more. */
async function checkMembershipGone(
  s: CompatibilitySession,
  account: TargetAccount,
  group: TestGroup,
  left: LeftBehind[],
): Promise<void> {
  const read = await s.attempt(
    `check that group "${group.displayName}" no longer lists the test account`,
    () => memberValuesOf(s.connector, group),
  );
  const values = new Set([account.accountId, account.id]);
  const still = read.value?.filter((value) => values.has(value)) ?? [];
  if (read.error !== undefined || read.value === undefined || still.length > 0) {
    left.push({
      kind: 'membership',
      name: group.displayName,
      id: group.id,
      detail:
        still.length > 0
          ? `the group still lists member value ${still.map((v) => `"${v}"`).join(', ')}`
          : `the revoke failed and the group's members could not be read: ${read.error?.message ?? 'no member list'}`,
    });
  }
}

/**
 * Removes what the run created, and checks each removal with a read: the test account
 * (always, even after a failed step), a membership a failed revoke left in an existing
 * group, and the temporary test group. What could not be removed is named.
 */
export async function cleanUp(s: CompatibilitySession, made: MadeByRun): Promise<Cleanup> {
  const removed: string[] = [];
  const left: LeftBehind[] = [];
  const group = made.groups?.group;
  const account = await removeAccount(s, made, removed, left);
  if (
    account !== undefined &&
    group !== undefined &&
    !group.temporary &&
    made.membershipMayRemain
  ) {
    await checkMembershipGone(s, account, group, left);
  }
  if (group?.temporary === true) {
    const deleted = await s.attempt('delete the temporary test group', () =>
      deleteTestGroup(s.connector, group),
    );
    if (deleted.value === true) {
      removed.push(
        `temporary test group "${group.displayName}" removed (deleted, and a read no longer finds it)`,
      );
    } else {
      left.push({
        kind: 'group',
        name: group.displayName,
        id: group.id,
        detail: deleted.error?.message ?? 'it can still be read after DELETE',
      });
    }
  }
  const summary =
    left.length === 0
      ? removed.join('; ')
      : `left behind, remove by hand: ${left.map((l) => `${l.kind} "${l.name}"${l.id === undefined ? '' : ` (${l.id})`}: ${l.detail}`).join('; ')}` +
        (removed.length === 0 ? '' : `; ${removed.join('; ')}`);
  return { summary, leftBehind: left };
}
