import type { ProxyNotFoundBody } from '../faults/proxy-not-found.js';
import type { SandboxFaultKind, SandboxFaultPlan } from '../faults/sandbox-fault-plan.js';
import type { TruthEvent } from '../truth/truth-event.js';
import type { DirectorySnapshot } from './directory-snapshot.js';
import type { GraphQuotaOptions, GraphQuotaStats } from './entra-quota.js';
import type { EntraRoleName } from './permissions.js';

export type { DirectorySnapshot };

/** An app registration known to the sandbox's token authority. */
export interface GraphSandboxClient {
  clientId: string;
  secret: string;
  /**
   * Application permissions granted to the app, e.g. `User.ReadWrite.All`; they become the
   * token's `roles` claim. Empty: no permission is granted, and the token has no `roles` claim.
   */
  roles: string[];
  /**
   * Microsoft Entra roles assigned to the app's service principal (the token's `wids`).
   * Changing or deleting a user who holds a directory role needs Global Administrator or
   * Privileged Authentication Administrator; without, Graph answers 403 (default: none).
   */
  directoryRoles?: EntraRoleName[];
  /**
   * When the client secret ends (ms since the epoch; Entra: the password credential's
   * `endDateTime`): from then on the authority refuses it with AADSTS7000222, as Entra ID
   * does. Default: it never ends.
   */
  secretExpiresAt?: number;
}

/** A replication delay in ms: fixed, or drawn per read from `[min, max]`. */
export type ReplicationDelay = number | { min: number; max: number };

/** How long a created user stays unknown to writes, in ms: fixed, or drawn per user from `[min, max]`. */
export type NewObjectWriteLag = number | { min: number; max: number };

/** A request budget: at most `limit` Graph requests per `windowMs`, then 429 with `Retry-After`. */
export interface ThrottleSettings {
  limit: number;
  windowMs: number;
  retryAfterSeconds: number;
}

/** Options of {@link startGraphSandbox}; every field has a default. */
export interface GraphSandboxOptions {
  /** Default: a fixed GUID (see `DEFAULT_SANDBOX_TENANT_ID`). */
  tenantId?: string;
  /** Default: one client (see `DEFAULT_SANDBOX_CLIENT`) holding every permission of the spec's table + Directory.Read.All. */
  clients?: GraphSandboxClient[];
  /** Default `['contoso.example']`; `POST /users` with another UPN domain answers 400. */
  verifiedDomains?: string[];
  /** Added to every Graph response (not to the token endpoint), real milliseconds. */
  latencyMs?: number;
  /** Clock in ms for replication delay, throttling windows and error dates (default `Date.now`). */
  now?: () => number;
  /** A write becomes visible to reads only this long after it was committed (default 0). */
  replicationDelayMs?: ReplicationDelay;
  /** Seed of the per-read replication delay draws when no fault plan is set (default fixed). */
  replicationSeed?: number;
  /**
   * A created user answers writes naming it (PATCH, DELETE, member `$ref` add/remove,
   * `members@odata.bind`) with 404 `Request_ResourceNotFound` for this long (default 0).
   */
  newObjectWriteLagMs?: NewObjectWriteLag;
  /** Faults injected into Graph calls (never the token endpoint); default none. */
  faults?: SandboxFaultPlan;
  /** Default true; false makes `$select=signInActivity` answer 403. */
  signInActivityLicensed?: boolean;
  /** Default: no throttling. */
  throttle?: ThrottleSettings;
  /**
   * Items per page of a `groups/delta` or `users/delta` round (default 200: Graph's page size for directory
   * objects in delta queries, which ignore `$top`).
   */
  deltaPageSize?: number;
  /**
   * Member references (`members@delta`) per page of a `groups/delta` round (default 1,000):
   * a group with more members comes again on the next pages with the rest, as Graph splits
   * large groups.
   */
  deltaReferencesPerPage?: number;
  /** A directory to start with instead of an empty one (a `snapshot()` of an earlier run). */
  restore?: DirectorySnapshot;
  /**
   * Called after every Graph request that may have changed the directory (any method but
   * GET), before it is answered: the local host saves the directory then.
   */
  onChange?: () => void;
  /**
   * How long issued access tokens last (default Entra ID's 3599 s, on the real clock as
   * MSAL's cache is). MSAL renews a token 5 minutes before it expires, so below 300 s every
   * call asks for a new one: a revoked secret then fails the next call, not an hour later.
   */
  tokenLifetimeSeconds?: number;
  /** Quota mode: Entra ID's per-app write and resource-unit limits (default off). */
  quota?: GraphQuotaOptions;
}

/** One Graph request as the sandbox saw it. `viaBatch` marks sub-requests of a `$batch`. */
export interface GraphSandboxRequestRecord {
  method: string;
  /** The path without the query string, e.g. `/v1.0/groups/{id}/members/$ref`. */
  path: string;
  status: number;
  viaBatch?: boolean;
  /**
   * The write was applied, then its answer lost: `status` is what reached the client (0 for a
   * reset, or a gateway's 504). On a sub-request: its envelope's answer was lost, so the
   * client never saw this sub-request's `status`; or its own sub-response was a gateway's
   * 503 or 504 (`subRequestLostAnswerRate`), which `status` is.
   */
  answerLost?: boolean;
  /** The W3C `traceparent` the request came with (a `$batch` sub-request: its envelope's). */
  traceparent?: string;
}

export interface SandboxSignInActivity {
  lastSignInDateTime?: string | null;
  lastNonInteractiveSignInDateTime?: string | null;
  lastSuccessfulSignInDateTime?: string | null;
}

export interface SandboxUserSeed {
  userPrincipalName: string;
  displayName?: string;
  accountEnabled?: boolean;
  id?: string;
  signInActivity?: SandboxSignInActivity;
}

export interface SandboxGroupSeed {
  displayName: string;
  id?: string;
  groupTypes?: string[];
  mailEnabled?: boolean;
  securityEnabled?: boolean;
  onPremisesSyncEnabled?: boolean | null;
  isAssignableToRole?: boolean;
  membershipRule?: string;
  /**
   * No app may read this group, whatever its permissions (graph-behaviour.md: objects the
   * app may not read): in `members` and `memberOf` it comes back as `@odata.type` and `id`
   * only, `GET /groups` leaves it out, and a call naming it answers 403.
   */
  limited?: boolean;
}

/** A running Graph sandbox: token authority and Graph v1.0 subset on one HTTPS loopback port. */
export interface GraphSandbox {
  readonly tenantId: string;
  /** `https://127.0.0.1:PORT`; the MSAL authority is `${authority}/${tenantId}`. */
  readonly authority: string;
  /** `127.0.0.1:PORT`, for MSAL's `knownAuthorities`. */
  readonly knownAuthority: string;
  /** JSON string for MSAL's `authorityMetadata` option (endpoints for `tenantId`, default the sandbox's). */
  authorityMetadata(tenantId?: string): string;
  /** `https://127.0.0.1:PORT`; Graph paths live under `/v1.0`. */
  readonly graphEndpoint: string;
  /** PEM certificate of the server: trust it (it is its own CA). */
  readonly ca: string;
  readonly stats: { tokenRequests: number; graphRequests: number; batchSubRequests: number };
  /** Bytes of every answer body sent since the start (what clients had to read). */
  readonly bytesServed: number;
  /** Graph requests in order, batch sub-requests included (marked `viaBatch`). */
  readonly requests: readonly GraphSandboxRequestRecord[];
  clearRequests(): void;
  /** Seeds a user, visible at once. */
  addUser(u: SandboxUserSeed): { id: string };
  /** Seeds a group, visible at once. */
  addGroup(g: SandboxGroupSeed): { id: string };
  addDirectoryRole(r: { displayName: string }): { id: string };
  addAdministrativeUnit(a: { displayName: string }): { id: string };
  /** Changes a group as an administrator would (`displayName`, `mailEnabled`, ...): `groups/delta` reports it. */
  updateGroup(groupId: string, changes: Omit<Partial<SandboxGroupSeed>, 'id'>): void;
  /**
   * From now on `groups/delta` reports this group `@removed` though it still exists and
   * `GET /groups/{id}` answers it: what Graph does for a group that left the delta query's
   * scope or filter, or on a replica's disagreement (graph-behaviour.md).
   */
  reportGroupRemoved(groupId: string): void;
  /**
   * Requests whose path ends with `pathEnd` (`/groups/{id}`) are answered 404 by a proxy in
   * front of Graph, with an HTML page or an empty body: never Graph's error body. Until
   * `clearProxyNotFound`.
   */
  injectProxyNotFound(pathEnd: string, body?: ProxyNotFoundBody): void;
  clearProxyNotFound(): void;
  /** Deletes a group as an administrator would: `groups/delta` reports it removed. */
  deleteGroup(groupId: string): void;
  /** Every delta and skip token issued so far expires (400 `syncStateNotFound`), as after 7 days. */
  expireDeltaTokens(): void;
  /** Seeds a membership, visible at once; the container is a group, directory role or administrative unit. */
  addMember(containerId: string, memberId: string): void;
  /** Committed state (ignores replication delay), `passwordProfile` included. */
  getUser(id: string): Record<string, unknown> | undefined;
  /** Committed direct members of a group (users and groups). */
  directMemberIds(groupId: string): string[];
  /** Committed user holding this userPrincipalName (any case), never a replica's view. */
  userIdByUpn(upn: string): string | undefined;
  /** Committed groups the user is a direct member of (no roles or administrative units). */
  groupIdsOf(userId: string): string[];
  /** The committed directory, passwords left out: what `restore` takes. */
  snapshot(): DirectorySnapshot;
  /** Changes committed through the API, in commit order (seeding records nothing). */
  truthLog(): readonly TruthEvent[];
  clearTruthLog(): void;
  /**
   * Sets or (undefined) removes the fault plan: its decisions, the replication delays and
   * the write lags drawn from then on restart from its seed; the fault counts restart at 0.
   */
  setFaults(plan: SandboxFaultPlan | undefined): void;
  /** Faults injected since the start or the last `setFaults` (the `throttle` budget not included). */
  faultCounts(): Record<SandboxFaultKind, number>;
  /** Applies to users created from now on. */
  setNewObjectWriteLag(lag: NewObjectWriteLag): void;
  /** Replaces a client's permissions; tokens issued before keep their roles (as in Entra ID). */
  setClientRoles(clientId: string, roles: string[]): void;
  /**
   * Replaces a client's secret (an admin rotated or revoked it): token requests with the old
   * one answer 401 `invalid_client` (AADSTS7000215); tokens issued before stay valid until
   * they expire, as in Entra ID.
   */
  setClientSecret(clientId: string, secret: string): void;
  /** Sets the lifetime of tokens issued from now on (see `tokenLifetimeSeconds`). */
  setTokenLifetime(seconds: number): void;
  setReplicationDelay(d: ReplicationDelay): void;
  setThrottle(t: ThrottleSettings | undefined): void;
  /** Switches quota mode on (buckets as the options say) or off (undefined). */
  setQuota(quota: GraphQuotaOptions | undefined): void;
  /** What quota mode charged since it was switched on: calls, writes, 429s. */
  quotaStats(): GraphQuotaStats | undefined;
  setLicensed(licensed: boolean): void;
  setLatency(ms: number): void;
  /** The next GET of this user reports `accountEnabled` as it was before the last PATCH. */
  failNextLockReadBack(userId: string): void;
  close(): Promise<void>;
}
