/** A simple attribute value: the only kind the Mapping carries (spec: "further simple attributes"). */
export type SimpleValue = string | number | boolean;

/** The identity as the governance workflow describes it: what the service writes to a target. */
export interface AccountProfile {
  /** The account ID under which the account is linked in the service (SCIM userName, Graph UPN). */
  accountId: string;
  displayName?: string;
  givenName?: string;
  familyName?: string;
  email?: string;
  /** Further simple attributes, sent to the target according to the connector's Mapping. */
  attributes?: Record<string, SimpleValue>;
}

/** An account as found on a target. `id` is the target's own identifier. */
export interface TargetAccount {
  id: string;
  accountId: string;
  displayName?: string;
  /** Absent when the target showed no state (a SCIM user without `active`): unknown, not enabled. */
  enabled?: boolean;
  /** The profile attributes as the target shows them, those it can read back (read-back of an update). */
  profile?: AccountChanges;
}

/** The part of a profile an update may change: everything but the account ID. */
export type AccountChanges = Omit<Partial<AccountProfile>, 'accountId'>;
