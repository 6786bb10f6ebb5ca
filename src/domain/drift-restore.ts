import type { DriftFinding } from './drift-finding';
import type { ProvisioningAction } from './provisioning-request';

/** One ordinary provisioning request a restore makes: the actions that undo an account's drift. */
export interface RestoreRequest {
  accountId: string;
  actions: ProvisioningAction[];
  findingIds: string[];
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
