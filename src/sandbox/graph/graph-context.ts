import type { FaultDecider } from '../faults/fault-decider.js';
import type { DirectoryStore, ReadView } from './directory-store.js';

/** One Graph call, from HTTP or from a `$batch` sub-request, after the token was checked. */
export interface GraphCall {
  method: string;
  /** Decoded path segments after `/v1.0`, e.g. `['groups', id, 'members', '$ref']`. */
  segments: string[];
  /** The raw path after `/v1.0`, for `@odata.nextLink`. */
  rawPath: string;
  query: URLSearchParams;
  body: unknown;
  /** The token's `roles` claim (empty when the claim is absent). */
  roles: readonly string[];
  /** The token's `wids` claim: the app's Entra roles (empty when absent). */
  wids: readonly string[];
  /** The token's `appid`: quotas are per app. */
  appId: string;
}

/** The sandbox's mutable settings, shared by all handlers. */
export interface GraphSettings {
  verifiedDomains: string[];
  signInActivityLicensed: boolean;
  /** Items per page of a `groups/delta` or `users/delta` round. */
  deltaPageSize: number;
  /** Member references (`members@delta`) per page of a `groups/delta` round. */
  deltaReferencesPerPage: number;
  /** Delta and skip tokens of another generation are expired (`expireDeltaTokens()`). */
  deltaTokenGeneration: number;
}

/** Everything a Graph handler needs besides the call. */
export interface GraphContext {
  readonly store: DirectoryStore;
  readonly settings: GraphSettings;
  /** `https://127.0.0.1:PORT`, for `@odata.nextLink` and `@odata.id` checks. */
  graphEndpoint(): string;
  now(): number;
  /** A fresh view for one read: the clock and this read's replication delay. */
  readView(): ReadView;
  /** Draws how long a user created now stays unknown to writes (ms). */
  newObjectWriteLag(): number;
  /** The fault plan's decisions and the count of every injected fault. */
  readonly faults: FaultDecider;
  /** Users whose next GET reports `accountEnabled` as before the last PATCH. */
  readonly staleLockReads: Set<string>;
  /** `accountEnabled` of each user before its last PATCH. */
  readonly accountEnabledBeforePatch: Map<string, unknown>;
  /** Groups seeded `limited`: no app may read them (only `@odata.type` and `id` come back). */
  readonly limitedGroups: Set<string>;
  /**
   * Groups `groups/delta` reports `@removed` though they exist (`reportGroupRemoved`): as for a
   * group that left the query's scope, or on a replica's word.
   */
  readonly removedInDelta: Set<string>;
}
