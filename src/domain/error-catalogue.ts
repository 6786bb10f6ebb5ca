import type { ErrorCode } from './errors';

export interface ErrorCodeEntry {
  /** The HTTP status the API answers when this error ends a call. */
  status: number;
  /** What the code means to a caller, and what to do about it. */
  meaning: string;
}

/**
 * Every error code the service answers with (the closed set of `ErrorCode`), its HTTP
 * status and its meaning: the API maps codes to statuses here, and the OpenAPI document
 * lists them as the enum callers must handle. A code missing here does not compile.
 */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, ErrorCodeEntry>> = {
  CONFIG_INVALID: {
    status: 500,
    meaning: 'a setting of the service is invalid; the operator must fix it',
  },
  REQUEST_INVALID: {
    status: 400,
    meaning: 'the request is invalid; `problems` names each problem',
  },
  ATTRIBUTE_NOT_MAPPED: {
    status: 400,
    meaning:
      "the request's account.attributes name attributes its connector's Mapping does not name (the connector would drop them): `connector` names the connector, `attributes` and `problems` each such attribute; nothing was started. Add them to the Mapping, or leave them out",
  },
  REQUEST_TOO_LARGE: { status: 413, meaning: 'the request body is larger than the API accepts' },
  PATH_SEGMENT_INVALID: {
    status: 400,
    meaning:
      'a segment of the URL path is not percent-encoded UTF-8; `object` is the segment as sent',
  },
  REQUEST_CONFLICT: {
    status: 409,
    meaning: 'the requestId was used before for a different request',
  },
  UNAUTHORIZED: {
    status: 401,
    meaning: 'no valid function key and no signed-in caller: send a key, or sign in',
  },
  FORBIDDEN: {
    status: 403,
    meaning:
      'the signed-in caller lacks the app role the call needs (Provisioning.Reader to view, Provisioning.Operator to act)',
  },
  NOT_FOUND: { status: 404, meaning: 'no such request, job or route' },
  CONNECTOR_NOT_FOUND: { status: 404, meaning: 'no connector of that name is configured' },
  OPERATION_NOT_SUPPORTED: {
    status: 400,
    meaning:
      "the connector kind cannot do this, or its target declares it does not (a SCIM server's ServiceProviderConfig with changePassword: false: a setPassword is not sent, since such servers answer it 2xx and ignore it); nothing was written",
  },
  SECRET_NOT_FOUND: {
    status: 502,
    meaning: 'a secret the settings name is not in the secret store',
  },
  SECRET_LOST: {
    status: 410,
    meaning:
      "the request's password was held in memory by the local host, which restarted before the request used it (passwords never touch its disk); send the request again",
  },
  TARGET_UNREACHABLE: { status: 503, meaning: 'the target could not be reached; try again later' },
  TARGET_TIMEOUT: { status: 504, meaning: 'the target did not answer in time; try again later' },
  TARGET_THROTTLED: {
    status: 503,
    meaning:
      "the target kept throttling past the connector's maxThrottleHoldMinutes, the longest a request waits for it on durable timers; the message names the target, how long the request waited and what the last Retry-After asked for",
  },
  TARGET_UNAVAILABLE: { status: 503, meaning: 'the target answered 5xx; try again later' },
  TARGET_AUTH_FAILED: { status: 502, meaning: "the target refused the service's credentials" },
  TARGET_FORBIDDEN: { status: 502, meaning: 'the target refused the call (403)' },
  TARGET_RESPONSE_INVALID: {
    status: 502,
    meaning:
      "the target answered something the service cannot read (also a 404 without the target's own not-found error: a proxy's or gateway's, which proves nothing)",
  },
  CONNECTOR_QUARANTINED: {
    status: 503,
    meaning:
      'the connector was quarantined (its target failed every request) for longer than the request may be held (quarantine.maxHoldHours); the steps not run were not written: send the request again once the connector is released',
  },
  SCIM_FILTER_UNSUPPORTED: {
    status: 502,
    meaning: 'the SCIM server refused a filter (compatibility point 4)',
  },
  SCIM_PATCH_UNSUPPORTED: {
    status: 502,
    meaning: 'the SCIM server does not support PATCH (compatibility point 5)',
  },
  SCIM_INVALID_VALUE: {
    status: 502,
    meaning:
      'the SCIM server refused a value (scimType invalidValue, invalidPath, noTarget, invalidSyntax)',
  },
  SCIM_UNIQUENESS_CONFLICT: {
    status: 409,
    meaning: 'the SCIM server holds another object with that name',
  },
  SCIM_MUTABILITY: {
    status: 502,
    meaning: 'the SCIM server does not let that attribute be written',
  },
  SCIM_REQUEST_REJECTED: { status: 502, meaning: 'the SCIM server refused the call' },
  GRAPH_TOKEN_FAILED: {
    status: 502,
    meaning: 'no access token was obtained (tenant, app or secret)',
  },
  GRAPH_CLIENT_SECRET_EXPIRED: {
    status: 502,
    meaning:
      "the connector's client secret has expired (its expiry in the secret store or the connector's clientSecretExpiresOn, or Entra ID said so); add a new secret to the app registration and store it under the same name",
  },
  GRAPH_PERMISSION_MISSING: {
    status: 502,
    meaning: 'the app lacks the application permission the message names',
  },
  GRAPH_ACCOUNT_PRIVILEGED: {
    status: 502,
    meaning:
      'the account holds a directory role: only an app holding a privileged Microsoft Entra role may change or delete it',
  },
  GRAPH_REQUEST_REJECTED: { status: 502, meaning: 'Microsoft Graph refused the call' },
  GRAPH_CONFLICT: {
    status: 409,
    meaning: 'several directory objects answer to that name; use the id',
  },
  ACCOUNT_NOT_FOUND: { status: 404, meaning: 'the account is not on the target' },
  ACCOUNT_EXISTS: {
    status: 409,
    meaning:
      "a create met an account under that account ID that nothing shows is this service's (not linked in its record, not made by this request): it was not taken over and the request's later steps did not run; the message names the account and its enabled state. If it is this person's account, submit unlock, update or grant for it (that links it); else choose another account ID. Also a lookup whose linked account a read no longer finds while another account holds the account ID: nothing acted on it or relinked it, the message names both ids, and an operator decides: if that account is this person's, POST /api/connectors/{name}/accounts/{accountId}/link with its targetId and a reason links it; else choose another account ID",
  },
  ACCOUNT_AMBIGUOUS: {
    status: 409,
    meaning:
      'a lookup of the account ID by name met several accounts that hold it in other cases and none exactly ("JSmith" and "JSMITH" for "jsmith", on a SCIM server that keeps userNames case-sensitive): none of them is known to be the account, so nothing was done to any of them; the message and `details.candidates` name each one\'s userName and id. Rename the duplicates on the target, or send the request under the exact userName',
  },
  GROUP_NOT_FOUND: {
    status: 404,
    meaning: 'the group is neither in the role catalogue nor on the target',
  },
  GROUP_NOT_WRITABLE: {
    status: 400,
    meaning:
      'the service may not write the members of the group (dynamic, mail-enabled, synced, role-assignable)',
  },
  CATALOGUE_EMPTY: {
    status: 409,
    meaning:
      "setMemberships needs the connector's role catalogue, which is empty: import it first (POST /connectors/{name}/imports); nothing was written",
  },
  ACCOUNT_STATE_NOT_CONFIRMED: {
    status: 502,
    meaning:
      'no read showed the written state within the visibility window; the message says what was read',
  },
  MEMBERSHIP_MISMATCH: {
    status: 502,
    meaning:
      'the memberships still differ after the re-reads; details name the missing and unexpected groups',
  },
  MEMBERSHIP_READ_UNAVAILABLE: {
    status: 502,
    meaning:
      'no read of the target could tell whether the account is a member of the group (a member list the server may cut short or does not return, no members filter, a user groups attribute that is absent or not known complete): a membership write was sent and its effect is not known; details.untold names the groups',
  },
  ACCOUNT_BUSY: {
    status: 409,
    meaning: 'another request kept the account for longer than the lease wait',
  },
  ACCOUNT_LEASE_ENDING: {
    status: 409,
    meaning:
      "a write was not sent: too little was left of the request's lease on the account (a step outlasted it, under throttling or an outage); the request renews the lease and sends it then",
  },
  ACCOUNT_RECORD_TOO_LARGE: {
    status: 507,
    meaning:
      "the service's record of the account would exceed Table Storage's 1 MiB per entity: the step's journal entries are written, the record is not updated; the operator must look at the account",
  },
  CATALOGUE_CURSOR_EXPIRED: {
    status: 410,
    meaning:
      'the target no longer knows the point the last catalogue import or reconciliation reached (an expired delta link); the job reads everything instead',
  },
  IMPORT_ALREADY_RUNNING: {
    status: 409,
    meaning:
      "another catalogue import of the connector is running (`details.runningJobId`, GET /jobs/{id}): one import per connector at a time; a job that lost the connector's import lease stops before it marks any role gone",
  },
  DRIFT_FINDING_NOT_FOUND: {
    status: 404,
    meaning: 'the connector has no drift finding of that id',
  },
  DRIFT_FINDING_CLOSED: {
    status: 409,
    meaning:
      'the drift finding is closed (a later reconciliation no longer found it): there is nothing to restore; nothing was started',
  },
  DRIFT_NOT_RESTORABLE: {
    status: 409,
    meaning:
      'the drift finding cannot be restored by the service (an unlinked member it does not own, an account deleted outside); nothing was started',
  },
  DRIFT_FINDING_CONTENDED: {
    status: 409,
    meaning:
      'other reconciliations or restores kept changing the drift finding while this one wrote it, each time it was read again; what this one judged was not stored: run it again',
  },
  INTERNAL_ERROR: {
    status: 500,
    meaning: 'the service failed unexpectedly; the operator log has the details',
  },
};

/** Every error code, in the catalogue's order. */
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The HTTP status an error ends a call with: the catalogue's, else 503 when retrying may help. */
export function httpStatusOf(error: { code: ErrorCode; retryable: boolean }): number {
  return ERROR_CATALOGUE[error.code]?.status ?? (error.retryable ? 503 : 502);
}
