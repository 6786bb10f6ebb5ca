import { isLinked, type AccountRecord } from './account-record';
import type { DriftFinding } from './drift-finding';
import type { ProvisioningAction } from './provisioning-request';

/** One ordinary provisioning request a restore makes: the actions that undo an account's drift. */
export interface RestoreRequest {
  accountId: string;
  actions: ProvisioningAction[];
  findingIds: string[];
}

/**
 * What a restore's request carries of each finding it restores: enough to ask
 * {@link stillRestorable} again when the request runs under the account's lease.
 */
export type RestoredFinding = Pick<
  DriftFinding,
  'findingId' | 'type' | 'accountId' | 'targetId' | 'groupId' | 'expectedEnabled' | 'lastConfirmed'
>;

/** The part of a finding its restore's request carries (no evidence, no history). */
export function restoredFindingOf(finding: DriftFinding): RestoredFinding {
  return {
    findingId: finding.findingId,
    type: finding.type,
    targetId: finding.targetId,
    lastConfirmed: finding.lastConfirmed,
    ...(finding.accountId === undefined ? {} : { accountId: finding.accountId }),
    ...(finding.groupId === undefined ? {} : { groupId: finding.groupId }),
    ...(finding.expectedEnabled === undefined ? {} : { expectedEnabled: finding.expectedEnabled }),
  };
}

/** Why a finding cannot be restored, when it cannot. */
export function notRestorable(finding: Pick<DriftFinding, 'type' | 'status'>): string | undefined {
  if (finding.status === 'closed') return 'the finding is closed: a later run no longer found it';
  switch (finding.type) {
    case 'unlinkedMember':
      return 'the service does not own this account: remove the member on the target, or link the account with a request';
    case 'accountDeletedOutside':
      return 'the account is gone from the target: create it again with a request that carries its profile';
    default:
      return undefined;
  }
}

/**
 * Why the service's record of the account, as it is now, no longer supports an open finding:
 * a restore would undo what the service did after the finding was seen (a grant governance
 * approved since, a revoke, an unlock of a rehire). Undefined when the finding still stands.
 * The finding stood against the record when reconciliation judged it; what changed since is
 * the service's own writes, so the rule asks the record, not the target: for memberAddedOutside,
 * the group is now assigned (or its membership unsettled); for memberRemovedOutside, it is no
 * longer assigned; for accountStateChangedOutside, the record's state is not the one the finding
 * expected; and for every type, the record no longer links the object the finding is about.
 * Where the record dates the write that changed it (`groupWrites`, `enabledAt`) after the
 * finding's last confirmation, the reason says when. A later write that agrees with the
 * restore (the restore's own request, sent again) leaves the finding restorable: restoring
 * it again changes nothing and joins that request. Asked when the restore is POSTed, and
 * again by its request under the account's lease (see `restoreStepUnderLease`): a request
 * that held the lease then may write after the first answer.
 *
 * @example
 * stillRestorable(addedOutside('ada', 'g2'), { ...record, assignedGroups: ['g2'] });
 * // 'the service assigns group g2 to "ada" now (granted at ...): ...'
 */
export function stillRestorable(
  finding: RestoredFinding,
  record: AccountRecord | undefined,
): string | undefined {
  const who = `"${finding.accountId ?? finding.targetId}"`;
  const again = 'reconcile again to see whether the drift remains';
  if (!isLinked(record)) {
    return `the service no longer links ${who} (deleted or never linked since the finding): ${again}`;
  }
  if (record.targetId !== finding.targetId && finding.targetId !== '') {
    return `the service links ${who} to another object (${record.targetId}) than the finding's (${finding.targetId}): ${again}`;
  }
  const since = (at: string | undefined) =>
    at !== undefined && Date.parse(at) > Date.parse(finding.lastConfirmed)
      ? ` at ${at}, after the finding was last confirmed at ${finding.lastConfirmed}`
      : '';
  const group = finding.groupId ?? '';
  const write = record.groupWrites?.[group];
  const unsettled = (record.unconfirmedGroups ?? []).includes(group);
  switch (finding.type) {
    case 'memberAddedOutside':
      if (unsettled) {
        return `a grant or revoke of group ${group} for ${who} was sent and not confirmed: the restore could undo it; ${again}`;
      }
      if (record.assignedGroups.includes(group)) {
        return `the service assigns group ${group} to ${who} now (granted${since(write?.at)}): revoking it would undo that grant`;
      }
      return undefined;
    case 'memberRemovedOutside':
      if (unsettled) {
        return `a grant or revoke of group ${group} for ${who} was sent and not confirmed: the restore could undo it; ${again}`;
      }
      if (!record.assignedGroups.includes(group)) {
        return `the service no longer assigns group ${group} to ${who} (revoked${since(write?.at)}): granting it again would undo that revoke`;
      }
      return undefined;
    case 'accountStateChangedOutside':
      if (record.enabled === undefined) {
        return `the service's last lock or unlock of ${who} is not confirmed: the restore could undo it; ${again}`;
      }
      if (record.enabled !== finding.expectedEnabled) {
        return `the service ${record.enabled ? 'unlocked' : 'locked'} ${who}${since(record.enabledAt)}: ${record.enabled ? 'locking' : 'unlocking'} it back would undo that`;
      }
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The requests that restore what the service assigned (issue 18: "repair on purpose"), one
 * per account: revoke what was added outside, grant again what was removed, lock or unlock
 * back to the state the service set last. Memberships first, then the state. Findings that
 * cannot be restored are the caller's to refuse or skip (see {@link notRestorable}).
 * `accountKey` is the connector's canonical form of an account ID: findings of one account
 * under two spellings make one request (two would race for the account's lease), under the
 * spelling of its first finding.
 *
 * @example
 * planRestore([{ type: 'memberAddedOutside', accountId: 'ada', groupId: 'g2', findingId: 'f1', ... }], (id) => id.toLowerCase());
 * // [{ accountId: 'ada', actions: [{ type: 'revoke', groups: [{ id: 'g2' }] }], findingIds: ['f1'] }]
 */
export function planRestore(
  findings: readonly DriftFinding[],
  accountKey: (accountId: string) => string,
): RestoreRequest[] {
  const byAccount = new Map<string, { accountId: string; list: DriftFinding[] }>();
  for (const finding of findings) {
    if (notRestorable(finding) !== undefined || finding.accountId === undefined) continue;
    const key = accountKey(finding.accountId);
    const account = byAccount.get(key) ?? { accountId: finding.accountId, list: [] };
    account.list.push(finding);
    byAccount.set(key, account);
  }
  return [...byAccount.values()].map(({ accountId, list }) => {
    const groups = (type: DriftFinding['type']) =>
      [
        ...new Set(
          list.filter((f) => f.type === type && f.groupId !== undefined).map((f) => f.groupId!),
        ),
      ].map((id) => ({ id }));
    const revoke = groups('memberAddedOutside');
    const grant = groups('memberRemovedOutside');
    const state = list.find((f) => f.type === 'accountStateChangedOutside');
    const actions: ProvisioningAction[] = [
      ...(revoke.length === 0 ? [] : [{ type: 'revoke' as const, groups: revoke }]),
      ...(grant.length === 0 ? [] : [{ type: 'grant' as const, groups: grant }]),
      ...(state?.expectedEnabled === undefined
        ? []
        : [{ type: state.expectedEnabled ? ('unlock' as const) : ('lock' as const) }]),
    ];
    return { accountId, actions, findingIds: list.map((f) => f.findingId) };
  });
}
