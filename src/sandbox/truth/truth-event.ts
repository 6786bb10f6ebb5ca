/** A change of an account's committed state, named as the service's journal names changes. */
export type TruthChange =
  | 'account created'
  | 'account updated'
  | 'password set'
  | 'account locked'
  | 'account unlocked'
  | 'account deleted'
  | 'member added'
  | 'member removed';

/** One change a sandbox committed: what a fault suite judges the service by. */
export interface TruthEvent {
  /** Order of commit, from 1, never reused (not even after `clearTruthLog`). */
  seq: number;
  /** Sandbox clock (ms). */
  at: number;
  change: TruthChange;
  /** Graph: the user's userPrincipalName in lower case; SCIM: the userName. */
  accountId: string;
  /** The target's own id of the user. */
  userId: string;
  /** For member changes. */
  groupId?: string;
  /** A membership removed as a side effect of deleting the user (or group): not a change of its own. */
  cascade?: boolean;
}
