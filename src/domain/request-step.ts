import type { AccountProfile } from './account';
import { accountStep } from './account-step';
import type { ConnectorCapabilities } from './capabilities';
import { membershipStep } from './membership-step';
import {
  acceptedSince,
  isMembershipAction,
  type ProvisioningAction,
  type ProvisioningRequest,
} from './provisioning-request';
import type { AccountHandle } from './step-context';
import type { GroupRef } from './group';
import type { IoResult, Machine } from './step-machine';
import type { StepOutcome } from './step-outcome';

/** What building the step machine of one action needs from its request. */
export interface StepsOf {
  requestId: string;
  connector: string;
  account: AccountProfile;
  actions: readonly ProvisioningAction[];
  /** Name of the request's transient password secret, when it has one. */
  passwordSecret?: string;
  capabilities: ConnectorCapabilities;
  /** Its steps take revision 1's paths (see `StepContext.replaysRevision1`). */
  replaysRevision1?: boolean;
  /** Its writes carry their first read back (see `StepContext.foldsReadBack`). */
  foldsReadBack?: boolean;
  /** Its unconfirmed writes leave their state not known (see `StepContext.recordsUnconfirmed`). */
  recordsUnconfirmed?: boolean;
  /** Its deletes made deactivations are recorded as such (see `StepContext.recordsDeactivation`). */
  recordsDeactivation?: boolean;
  /** Its updates are confirmed by every value read back (see `StepContext.readsEveryValueBack`). */
  readsEveryValueBack?: boolean;
  /** Its creates adopt only on evidence (see `StepContext.provesOwnCreate`). */
  provesOwnCreate?: boolean;
  /** Its read-backs take an unproven absence as shown (see `StepContext.believesUnprovenAbsence`). */
  believesUnprovenAbsence?: boolean;
  /** Its deletes conclude "absent" only on evidence (see `StepContext.provesAbsence`). */
  provesAbsence?: boolean;
  /**
   * Revision 5, the orchestration's alone (no step machine asks it): a first action that is a
   * create is sent with the request's first look at the connector, in the activity that takes
   * the account's lease, once the lease is taken; the step is fed that activity's answer.
   */
  createsWithFirstLook?: boolean;
}

/**
 * The paths a request's steps take by the revision it was accepted under: the one place
 * that says so, for the orchestration and the preview (which plans as a request accepted
 * now would run). A request running when a revision is deployed replays the history it has.
 */
export function stepFlagsOf(
  request: Pick<ProvisioningRequest, 'revision'>,
): Pick<
  StepsOf,
  | 'replaysRevision1'
  | 'foldsReadBack'
  | 'recordsUnconfirmed'
  | 'recordsDeactivation'
  | 'readsEveryValueBack'
  | 'provesOwnCreate'
  | 'believesUnprovenAbsence'
  | 'provesAbsence'
  | 'createsWithFirstLook'
> {
  const since = (revision: number) => acceptedSince(request as ProvisioningRequest, revision);
  return {
    // Revision 1: no read-back of a lost write, and the commits revision 1 made.
    ...(since(2) ? {} : { replaysRevision1: true }),
    // Revision 3: a write's first read back in the write's activity; unconfirmed states kept.
    ...(since(3) ? { foldsReadBack: true, recordsUnconfirmed: true } : {}),
    // Revision 4: deactivations recorded, updates confirmed by every value, creates taking
    // an existing account over only on evidence, no unproven absence verifying a write.
    ...(since(4)
      ? { recordsDeactivation: true, readsEveryValueBack: true, provesOwnCreate: true }
      : { believesUnprovenAbsence: true }),
    // Revision 5: a delete of an unlinked account concludes "absent" only on evidence.
    ...(since(5) ? { provesAbsence: true } : {}),
    // Revision 5: a first create sent with the first look at the connector, under its lease.
    ...(since(5) ? { createsWithFirstLook: true } : {}),
  };
}

/**
 * The step machine of the request's action at `index`: the account procedure or the
 * membership write procedure, sharing `handle` with the request's other steps. The one
 * place a request becomes steps: the orchestration drives them on activities, a preview on
 * reads and simulated writes (DESIGN invariant 10). `lookedUp`: the role catalogue's answer
 * for the groups a membership action names, when the driver has it already.
 *
 * @example
 * const outcome = await driveAsync(requestStep(request, 0, newAccountHandle()), io);
 */
export function requestStep(
  request: StepsOf,
  index: number,
  handle: AccountHandle,
  lookedUp?: IoResult<(GroupRef | null)[]>,
): Machine<StepOutcome> {
  const action = request.actions[index];
  if (action === undefined) throw new RangeError(`the request has no action #${index}`);
  const step = {
    requestId: request.requestId,
    step: index,
    connector: request.connector,
    accountId: request.account.accountId,
    capabilities: request.capabilities,
    handle,
    ...(request.replaysRevision1 === true ? { replaysRevision1: true } : {}),
    ...(request.foldsReadBack === true ? { foldsReadBack: true } : {}),
    ...(request.recordsUnconfirmed === true ? { recordsUnconfirmed: true } : {}),
    ...(request.recordsDeactivation === true ? { recordsDeactivation: true } : {}),
    ...(request.readsEveryValueBack === true ? { readsEveryValueBack: true } : {}),
    ...(request.provesOwnCreate === true ? { provesOwnCreate: true } : {}),
    ...(request.believesUnprovenAbsence === true ? { believesUnprovenAbsence: true } : {}),
    ...(request.provesAbsence === true ? { provesAbsence: true } : {}),
  };
  if (isMembershipAction(action)) {
    return membershipStep({
      ...step,
      action: action.type,
      groups: action.groups,
      ...(lookedUp === undefined ? {} : { lookedUp }),
    });
  }
  return accountStep({
    ...step,
    action: action.type,
    profile: request.account,
    ...(request.passwordSecret === undefined ? {} : { passwordSecret: request.passwordSecret }),
    lastPasswordUse: index === lastPasswordUse(request.actions),
  });
}

/** The index of the last action that uses the password (create or setPassword); -1 when none. */
export function lastPasswordUse(actions: readonly ProvisioningAction[]): number {
  return actions.map((a) => a.type).findLastIndex((t) => t === 'create' || t === 'setPassword');
}
