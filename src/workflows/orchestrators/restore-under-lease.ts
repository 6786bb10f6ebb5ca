import type { AccountRecord } from '../../domain/account-record';
import type { GroupRef } from '../../domain/group';
import type { ProvisioningRequest } from '../../domain/provisioning-request';
import type { StepsOf } from '../../domain/request-step';
import { restoreStepUnderLease } from '../../domain/restore-step';
import type { IoResult } from '../../domain/step-machine';

/** The step a request runs at `index` once a restore's findings were judged under the lease. */
export interface RestoreUnderLease {
  /** The action to run; undefined: every finding it restores no longer stands, it is skipped. */
  action: ProvisioningAction | undefined;
  /** The request's steps with that action in place, when it differs from the request's. */
  steps?: StepsOf;
  /** The roles looked up for the action's groups, those it keeps. */
  roles: IoResult<(GroupRef | null)[]> | undefined;
  /** Why findings were skipped. */
  notices: string[];
}

type ProvisioningAction = ProvisioningRequest['actions'][number];

/**
 * A drift restore's step judged against the service's record as the request holds it with
 * the account's lease (`stored`), before the step runs (`restoreStepUnderLease`). Any other
 * request, and a restore accepted before restores carried their findings, runs its action as
 * it is: no activity of its own, so no history recorded before replays otherwise.
 */
export function restoreUnderLease(
  request: ProvisioningRequest & StepsOf,
  index: number,
  stored: AccountRecord | null | undefined,
  roles: IoResult<(GroupRef | null)[]> | undefined,
): RestoreUnderLease {
  const action = request.actions[index];
  if (request.restores === undefined || action === undefined) {
    return { action, roles, notices: [] };
  }
  const checked = restoreStepUnderLease(action, request.restores, stored ?? undefined);
  if (checked.action === undefined || checked.notices.length === 0) {
    return { action: checked.action, roles, notices: checked.notices };
  }
  const kept = checked.keptGroups;
  const actions = request.actions.map((one, at) => (at === index ? checked.action! : one));
  return {
    action: checked.action,
    steps: { ...request, actions },
    roles:
      kept === undefined || roles === undefined || !roles.ok
        ? roles
        : { ok: true, value: kept.map((at) => roles.value[at] ?? null) },
    notices: checked.notices,
  };
}

/**
 * A restore's steps as judged on their first run, by step index. A step held and run again
 * keeps that judgement: by then the record may show the step's own write as not confirmed
 * (its answer lost before the hold), and judged again the restore would skip itself and end
 * "succeeded" without sending or verifying that write. What the request held the lease for
 * since its first run is its own. The roles of a run again are its own look-up's (undefined
 * here), as for any step run again.
 *
 * @example
 * const judged = new RestoreJudgements();
 * const restoring = judged.of(request, index, handle.stored, roles);
 */
export class RestoreJudgements {
  private readonly first = new Map<number, RestoreUnderLease>();

  of(
    request: ProvisioningRequest & StepsOf,
    index: number,
    stored: AccountRecord | null | undefined,
    roles: IoResult<(GroupRef | null)[]> | undefined,
  ): RestoreUnderLease {
    const judged = this.first.get(index);
    if (judged !== undefined) return { ...judged, roles };
    const restoring = restoreUnderLease(request, index, stored, roles);
    this.first.set(index, restoring);
    return restoring;
  }
}
