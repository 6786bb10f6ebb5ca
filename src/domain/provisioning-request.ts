import type { AccountProfile } from './account';
import type { ConnectorCapabilities } from './capabilities';
import type { RestoredFinding } from './drift-restore';
import type { RequestContext } from './request-context';

/** The actions of a provisioning request, run in the order given (DESIGN: Inbound API). */
export const ACTION_TYPES = [
  'create',
  'update',
  'lock',
  'unlock',
  'setPassword',
  'delete',
  'grant',
  'revoke',
  'setMemberships',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const MEMBERSHIP_ACTIONS: readonly ActionType[] = ['grant', 'revoke', 'setMemberships'];

/** A group as the governance workflow names it: by role name (catalogue or target) or by target id. */
export type GroupSelector = { name: string } | { id: string };

export type ProvisioningAction =
  | { type: 'create' | 'update' | 'lock' | 'unlock' | 'setPassword' | 'delete' }
  | { type: 'grant' | 'revoke' | 'setMemberships'; groups: GroupSelector[] };

/**
 * The orchestration input of a provisioning request, with the caller's context (who, why,
 * which case). It holds no secret: a password travels as the name of a transient secret in
 * the SecretStore (DESIGN invariant 5).
 */
export interface ProvisioningRequest extends RequestContext {
  requestId: string;
  connector: string;
  account: AccountProfile;
  actions: ProvisioningAction[];
  /** Name of the transient secret holding the request's password, when one was given. */
  passwordSecret?: string;
  /** Hash of the request as received (password excluded): a reused requestId must match it. */
  fingerprint: string;
  /** What the connector can do, as known when the request was accepted. */
  capabilities: ConnectorCapabilities;
  /** Where the request came from. */
  source: 'http' | 'queue' | 'cli';
  receivedAt: string;
  /**
   * The UTC day of `receivedAt` (`YYYY-MM-DD`): the request's write intents are kept under it
   * and purged with that day's. Absent in a request accepted before intents were kept by
   * day: its intents stay where its earlier runs recorded them.
   */
  intentDay?: string;
  /**
   * The revision of the request's orchestration it was accepted under ({@link REQUEST_REVISION}):
   * absent before revision 2. Where a later revision schedules other activities or timers at a
   * point of the request, it asks this, so that a request running when it is deployed replays
   * the history it has (DESIGN invariant 10).
   */
  revision?: number;
  /** What the operator should know when the request was accepted (a credential expiring soon). */
  notices?: string[];
  /**
   * A drift restore's request: the findings it restores, each checked again under the
   * account's lease before the step that restores it runs (`restoreStepUnderLease`). Set only
   * by the restore (never by a caller's body); absent in every other request, and in restores
   * accepted before it was carried, whose histories replay unchanged.
   */
  restores?: RestoredFinding[];
}

/**
 * The orchestration's revision for requests accepted now. 2: a step that meets throttling
 * past its in-place wait holds the request (DESIGN invariant 8) instead of failing it; a
 * write whose answer was lost is read back; an update shown in place and a write a read-back
 * refutes commit nothing (`StepContext.replaysRevision1`). 3: a step that succeeded with
 * another step right after it schedules no commit (recordStep) of its own: its journal
 * entries (keyed and timed by its own step) and record update go with the next commit, and
 * are written before a lease renewal, a hold, or the end (`CarriedCommit`); and a write the
 * step reads back at once (a membership step's last write; an update, lock, unlock or
 * delete) makes that first read back in its own activity, one activity fewer per step
 * (`StepContext.foldsReadBack`); and a lock, unlock, grant or revoke that nothing confirmed
 * leaves its state not known in the record (`StepContext.recordsUnconfirmed`). Revision 4:
 * a delete the target made a deactivation journals and records the lock it was
 * (`StepContext.recordsDeactivation`); an update is confirmed only by a read that
 * shows every value it wrote: one no read shows within the window leaves it not confirmed
 * (`StepContext.readsEveryValueBack`); and a create adopts an account a read shows after an
 * `exists` answer only on evidence that it is the service's, and a read that shows an
 * unconfirmed create was not applied withdraws its claimed intent (`StepContext.provesOwnCreate`); and a membership read-back whose "not a member" nothing
 * the target vouches for (a member list it may cut short) verifies nothing: the step fails
 * saying it could not tell, and the group's membership is marked not known
 * (`StepContext.believesUnprovenAbsence`, set before it). Revision 5: a delete of an account
 * the service holds no link for and a lookup does not show concludes "absent" only on evidence
 * (`StepContext.provesAbsence`); and a request whose first action is a create sends the create
 * with its first look at the connector, in the activity that takes the lease and looks the
 * roles up (`StepsOf.createsWithFirstLook`): one activity fewer per request that creates an
 * account. (Both came in the same release: no build that accepted revision 5 with only the
 * first of them ran anywhere that keeps histories.)
 */
export const REQUEST_REVISION = 5;

/** Whether a request was accepted under `revision` or a later one. */
export function acceptedSince(request: ProvisioningRequest, revision: number): boolean {
  return (request.revision ?? 1) >= revision;
}

export function isMembershipAction(
  action: ProvisioningAction,
): action is Extract<ProvisioningAction, { groups: GroupSelector[] }> {
  return MEMBERSHIP_ACTIONS.includes(action.type);
}

/** "Sales" or "id 8f1c...": a selector as the operator wrote it, for messages. */
export function describeSelector(selector: GroupSelector): string {
  return 'id' in selector ? `id "${selector.id}"` : `"${selector.name}"`;
}
