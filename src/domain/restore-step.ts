import type { AccountRecord } from './account-record';
import type { DriftType } from './drift-finding';
import { stillRestorable, type RestoredFinding } from './drift-restore';
import type { ProvisioningAction } from './provisioning-request';

/** What of a restore's step still stands under the account's lease. */
export interface RestoreStepCheck {
  /** The action with what still stands; undefined when nothing does: the step is skipped. */
  action: ProvisioningAction | undefined;
  /** The positions in the action's `groups` it keeps (membership actions): its looked-up roles. */
  keptGroups?: number[];
  /** One per finding no longer restorable: `skipped drift finding <id>: <why>`. */
  notices: string[];
}

/** The finding type each restore action undoes (planRestore's mapping, read backwards). */
const UNDOES: Partial<Record<ProvisioningAction['type'], DriftType>> = {
  revoke: 'memberAddedOutside',
  grant: 'memberRemovedOutside',
  lock: 'accountStateChangedOutside',
  unlock: 'accountStateChangedOutside',
};

/**
 * A restore's step, judged again when its request runs with the account's lease, against the
 * service's record read with that lease (`record`): the POST's check read the record before a
 * request that held the lease then (a governance grant queued before the restore) wrote, and
 * a restore must never undo what that request did. A finding the record no longer supports
 * (see {@link stillRestorable}) is skipped with the reason, as the POST skips it: its group
 * leaves the step; a lock or unlock it stood for, the whole step. The findings stay open for
 * the next reconciliation to close.
 *
 * @example
 * restoreStepUnderLease({ type: 'revoke', groups: [{ id: 'g2' }] }, [addedOutside('ada', 'g2')], { ...record, assignedGroups: ['g2'] });
 * // { action: undefined, keptGroups: [], notices: ['skipped drift finding f1: the service assigns group g2 to "ada" now ...'] }
 */
export function restoreStepUnderLease(
  action: ProvisioningAction,
  findings: readonly RestoredFinding[],
  record: AccountRecord | undefined,
): RestoreStepCheck {
  const undone = UNDOES[action.type];
  const mine = findings.filter((finding) => finding.type === undone);
  const stale = new Map<string, string>();
  for (const finding of mine) {
    const why = stillRestorable(finding, record);
    if (why !== undefined) stale.set(finding.findingId, why);
  }
  const notices = [...stale].map(([id, why]) => `skipped drift finding ${id}: ${why}`);
  if (!('groups' in action)) {
    return { action: stale.size === 0 ? action : undefined, notices };
  }
  const staleGroups = new Set(
    mine.filter((f) => stale.has(f.findingId) && f.groupId !== undefined).map((f) => f.groupId),
  );
  const keptGroups = action.groups.flatMap((selector, index) =>
    'id' in selector && staleGroups.has(selector.id) ? [] : [index],
  );
  if (keptGroups.length === 0) return { action: undefined, keptGroups, notices };
  const groups = keptGroups.map((index) => action.groups[index]!);
  return { action: { ...action, groups }, keptGroups, notices };
}
