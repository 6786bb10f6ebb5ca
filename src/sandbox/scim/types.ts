import type { ProxyNotFoundBody } from '../faults/proxy-not-found.js';
import type { SandboxFaultKind, SandboxFaultPlan } from '../faults/sandbox-fault-plan.js';
import type { TruthEvent } from '../truth/truth-event.js';
import type { ThrottleScope } from './fault-injector.js';
import type { CompareOp } from './scim-filter.js';
import type { ScimStoreSnapshot } from './scim-store.js';

export type { ScimStoreSnapshot };

/** How the sandbox authenticates callers (spec: Authentication, connector A). */
export type ScimSandboxAuth =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'basic'; username: string; password: string };

/**
 * Switchable misbehaviours of real SCIM servers (scim-interop.md, "Server quirks that break
 * clients"). Every flag is off by default; the default server follows RFC 7643/7644.
 */
export interface ScimQuirks {
  /** Cap `count` (and so `itemsPerPage`) at this value. */
  maxCount?: number;
  /** The page size of a list asked without `count` (RFC 7644 leaves it to the server; 100 else). */
  defaultCount?: number;
  /** Always answer from index 1; without `maxCount` every page is the whole result. */
  ignoreStartIndex?: boolean;
  /** `totalResults`, `itemsPerPage` and `startIndex` as JSON strings. */
  numbersAsStrings?: boolean;
  /** ListResponse without `totalResults`. */
  omitTotalResults?: boolean;
  /**
   * Lists end early: past this many resources every page comes back empty (with
   * `listEndsWithoutResources`, an empty page has no `Resources` at all), while
   * `totalResults` still counts them all.
   */
  listEndsAfter?: number;
  /** `totalResults` counts only the resources of the page answered, not the whole list. */
  totalResultsIsPageSize?: boolean;
  /** An empty ListResponse leaves `Resources` out (RFC 7644 lets a server omit an empty list). */
  listEndsWithoutResources?: boolean;
  /**
   * Offsets shift between pages: pages after the first are answered as if this many of the
   * first resources had been deleted meanwhile (by another client): later resources move up
   * by as many, so that as many just past the first page are on no page a client reads, and
   * `totalResults` drops by as many. The stored data does not change.
   */
  listShiftsBy?: number;
  /**
   * A `startIndex` past the list's end is refused (400 `invalidValue`) instead of answered
   * with an empty page, as some servers do: a read that asks one page past `totalResults`
   * gets an error, not an end.
   */
  refusesStartIndexPastEnd?: boolean;
  /**
   * `GET /Users/{id}` of any other existing user answers the user of this id or userName (a
   * caching proxy that answers one cached user for every read).
   */
  readAnswersUser?: string;
  /** A filtered GET with no match answers 404 instead of an empty ListResponse. */
  notFoundOnEmptyFilter?: boolean;
  /** Every successful PATCH answers 204 without a body. */
  patchNoContent?: boolean;
  /** PATCH answers 204 and changes nothing. */
  ignorePatchOps?: boolean;
  /** With `ignorePatchOps`: the ignored PATCH answers 200 with the resource as it is. */
  ignoredPatchAnswersResource?: boolean;
  /**
   * With `ignorePatchOps`: the ignored PATCH answers 200 with the resource as the patch would
   * have left it (`active` as asked, the member added or gone), while nothing is stored: an
   * application that answers from the request and drops what it does not persist.
   */
  ignoredPatchEchoesRequest?: boolean;
  /** DELETE on a user answers 204 and deletes nothing (a soft delete that never comes). */
  ignoreDeletes?: boolean;
  /**
   * DELETE on a user answers 204 and only deactivates it (`active` false, groups kept): the
   * user still reads 200, as Slack's SCIM API does (a soft delete that is a lock).
   */
  deleteDeactivates?: boolean;
  /**
   * `filter` is silently ignored on `/Users` and `/Groups`: every resource comes back, paged
   * as usual (with `maxCount`, the one asked for may be on a later page).
   */
  ignoreFilters?: boolean;
  /**
   * Groups show at most this many `members` in any answer (groups too big to read whole);
   * the `members eq` filter still sees them all.
   */
  maxMembersShown?: number;
  /** Groups never return `members` (AWS-like); the `members eq` filter still works. */
  omitMembers?: boolean;
  /**
   * How users show their `groups` (RFC 7643 §4.1.2, read-only). Default: never (many
   * servers do not return it). `served`: every user answer lists the user's direct groups,
   * whole, however the groups' member lists are cut (`maxMembersShown`); `refused`: a read
   * whose `attributes` names `groups` answers 400 `invalidValue`, as servers that do not
   * know the attribute do.
   */
  userGroups?: 'served' | 'refused';
  /**
   * With `userGroups: 'served'`: a user's `groups` lists at most this many of its groups (the
   * first ones the server holds), as servers cap a multi-valued attribute or serve only the
   * first page of a big list; the groups' own member lists and the truth are unchanged.
   */
  maxUserGroupsShown?: number;
  /**
   * With `userGroups: 'served'`: groups (by `displayName`) a user's `groups` never lists, as
   * servers that list groups of one type only (security groups, or groups assigned to the
   * application); their member lists and the truth still hold the user.
   */
  userGroupsLeaveOut?: readonly string[];
  /**
   * How a filter on `members` is served: `refused` answers 400 `invalidFilter`; `ignored`
   * treats every comparison on members as true (the group comes back whoever is asked about);
   * `blind` treats it as false (the member clause is evaluated against something else: no
   * group comes back, whoever is asked about, with `notFoundOnEmptyFilter` a 404), while the
   * groups' member lists still show every member.
   */
  membersFilter?: 'refused' | 'ignored' | 'blind';
  /** Member values that are not an existing user's SCIM `id` are refused with 400 `invalidValue`. */
  memberValuesMustBeInternalIds?: boolean;
  /**
   * A removal naming a member value that is not an existing user's SCIM `id` is refused with
   * 400 `invalidValue`, even where the group holds that value (a server that turned strict
   * after members were added by userName): such a member cannot be removed by the client.
   */
  memberRemovalsMustBeInternalIds?: boolean;
  /**
   * Member values are kept in lower case (as userNames are compared: RFC 7643 makes them
   * case-insensitive), and the members filter and removals compare them so: a member added
   * as `Ada.Lovelace` is listed as `ada.lovelace`.
   */
  memberValuesLowercased?: boolean;
  /** Which member-remove form is accepted; the other answers 400 (`invalidPath` / `invalidValue`). */
  memberRemoveStyle?: 'any' | 'pathFilter' | 'valueArray';
  /** `userName`/`displayName` filters compare exactly instead of case-insensitively. */
  caseSensitiveFilters?: boolean;
  /**
   * userName compares exactly, as on servers that keep it case-sensitive although RFC 7643
   * marks it caseExact false (scim-interop.md): users may differ only in case ("JSmith" and
   * "JSMITH"), and a userName names a user or a member only in its own case. Filters still
   * compare as `caseSensitiveFilters` says (such servers usually filter exactly too).
   */
  userNamesCaseExact?: boolean;
  /** `/ServiceProviderConfig` answers 404. */
  noServiceProviderConfig?: boolean;
  /**
   * How users show `active` in every answer (what is stored does not change): `omitted`
   * leaves it out (RFC 7643 lets a server omit an attribute it does not return), `capitalised`
   * spells it `Active` (attribute names are case-insensitive, RFC 7643 §2.1).
   */
  activeAttribute?: 'omitted' | 'capitalised';
  /** Users carry their last logon under this attribute name or dotted path. */
  lastLogonAttribute?: string;
  /**
   * How `POST /Users` answers a create it made (the user IS created): `withoutId` with the
   * user but no `id`, `meta.location` or `Location` header (a real gateway did this);
   * `notJson` with a body that does not parse.
   */
  createAnswer?: 'withoutId' | 'notJson';
  /**
   * `POST /Users` answers 201 with the user and a fresh `id`, and stores nothing (a create
   * queued and later dropped by the application): no read ever finds it.
   */
  createNotStored?: boolean;
  /** Milliseconds added before every response. */
  latencyMs?: number;
  /**
   * The comparison operators filters may use; any other answers 400 `invalidFilter`
   * (applications' built-in SCIM services: no `co`). Default: all of RFC 7644 §3.4.2.2.
   */
  filterOperators?: readonly CompareOp[];
  /**
   * A filter using `co` is accepted and matches nothing: 200 with an empty ListResponse
   * (servers that parse an operator they do not implement). With `notFoundOnEmptyFilter`, a 404.
   */
  coMatchesNothing?: boolean;
  /**
   * How a read, change or delete of a user or group the server does not have is answered
   * (404): without a body, SCIM 1.1's `{"Errors": [{"code": "404"}]}`, or the application's
   * HTML page, instead of a SCIM 2.0 error (filters keep theirs).
   */
  notFoundAnswer?: 'empty' | 'scim11Error' | 'html';
  /** `POST /Groups` answers 405 (groups are made in the application only); nothing is created. */
  groupCreateNotAllowed?: boolean;
  /** `GET /Groups` takes no filter but `displayName eq "..."`; any other answers 400 `invalidFilter`. */
  groupFilterDisplayNameEqOnly?: boolean;
  /**
   * `password` is not writable by PATCH (400 `invalidPath`), while a password on create is
   * accepted and silently ignored; `/ServiceProviderConfig` says `changePassword: false`.
   */
  passwordNotPatchable?: boolean;
  /**
   * `/ServiceProviderConfig` says `changePassword: false`, yet a PATCH that writes `password`
   * answers 204 and does nothing (the server neither refuses nor applies it); a password on
   * create is accepted and silently ignored too.
   */
  passwordPatchIgnored?: boolean;
  /**
   * A PATCH on a user whose path holds a value filter (`emails[primary eq true].value`)
   * answers 400 `invalidPath`: servers that take plain attribute paths only.
   */
  userPatchPathFiltersRefused?: boolean;
  /**
   * DELETE on users and groups answers 405 (applications that only let provisioning
   * deactivate accounts); nothing is deleted.
   */
  deleteNotAllowed?: boolean;
  /** No groups at all: every `/Groups` path answers 404; `/ResourceTypes` and `/Schemas` leave Group out. */
  noGroups?: boolean;
  /**
   * What paths outside the SCIM prefix (and the base URL) answer: a SCIM 404 (default), an
   * application's HTML 404 page, or its HTML page with 200 (a single-page app's fallback).
   */
  outsidePrefix?: 'scimNotFound' | 'html404' | 'html200';
  /**
   * Every write that carries a password (`password` on POST/PUT, a PATCH naming it) answers 400
   * with a non-SCIM body `{"message": "password ... is too weak"}` that echoes the password
   * JSON-escaped as the server's language writes it: `php` (json_encode: `\/` and `\u00fc`),
   * `python` (json.dumps: `\u00fc`), `every` (every character `\uXXXX`). Nothing is stored.
   */
  passwordRefusedEchoed?: 'php' | 'python' | 'every';
  /**
   * A server of limited capacity: at most `concurrent` requests worked on at once, each for
   * `serviceMs`; the others queue, so its latency grows with the load it is given.
   */
  capacity?: { concurrent: number; serviceMs: number };
}

export interface ScimSandboxOptions {
  /** Default `{ type: 'none' }`. */
  auth?: ScimSandboxAuth;
  /**
   * A bearer token of the application's own administrators, accepted besides `auth`: changes
   * made with it are made "by hand", outside the service (the local host prints it).
   */
  adminToken?: string;
  /** Path of the SCIM endpoints; default `/scim/v2`; may be `''`. */
  prefix?: string;
  quirks?: ScimQuirks;
  /** Seeded faults injected into every call; default none. */
  faults?: SandboxFaultPlan;
  /** Clock in ms for truth-log times and fault storms (default `Date.now`). */
  now?: () => number;
  /** Users and groups to start with instead of none (a `snapshot()` of an earlier run). */
  restore?: ScimStoreSnapshot;
  /**
   * Called after every request that may have changed the data (any method but GET), before
   * it is answered: the local host saves the data then.
   */
  onChange?: () => void;
}

/** One request as the sandbox saw it; never holds a credential (passwords in bodies are redacted). */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, including the prefix. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
  /** Requests in the server (worked on or queued) when this one arrived, itself included. */
  concurrent: number;
  /** The W3C `traceparent` the request came with. */
  traceparent?: string;
  /**
   * The write was applied, then its answer lost: `status` is what reached the client (0 for
   * a reset, or a gateway's 504), as in the Graph sandbox's log.
   */
  answerLost?: boolean;
}

/** A running in-memory SCIM 2.0 server on 127.0.0.1. */
export interface ScimSandbox {
  /**
   * The value a connector's "Base URL" setting takes (spec: connection settings, connector A):
   * origin + prefix without a trailing `/scim/v2`; for other prefixes the full root.
   */
  readonly baseUrl: string;
  /** Full root of the SCIM endpoints, e.g. `http://127.0.0.1:PORT/scim/v2`. */
  readonly endpoint: string;
  /** Replaces the quirk set at run time. */
  setQuirks(quirks: ScimQuirks): void;
  /**
   * Replaces the credentials the server accepts, from the next request on: a revoked or
   * rotated token is answered 401 with its challenge, as a server whose admin revoked it does.
   */
  setAuth(auth: ScimSandboxAuth): void;
  /**
   * The next `count` requests answer 429 with this `Retry-After` (seconds or HTTP-date);
   * `scope.writesOnly`: the next writes, once `scope.afterWrites` writes have passed;
   * `scope.readsOnly`: the next reads, once `scope.afterWrites` writes have passed.
   */
  injectThrottle(count: number, retryAfter: string, scope?: ThrottleScope): void;
  /** The next `count` requests (of `scope`, as for `injectThrottle`) answer this status with a SCIM error body. */
  injectServerErrors(count: number, status: 500 | 502 | 503 | 504, scope?: ThrottleScope): void;
  /**
   * The next `count` requests (of `scope`, as for `injectThrottle`) answer 403 with a SCIM
   * error body: the application refusing the service's client (an admin disabled it).
   */
  injectForbidden(count: number, scope?: ThrottleScope): void;
  /**
   * Requests whose path ends with `pathEnd` (`/Groups/{id}`) are answered 404 by a proxy in
   * front of the server, with an HTML page or an empty body: never a SCIM error. Until
   * `clearInjected`.
   */
  injectProxyNotFound(pathEnd: string, body?: ProxyNotFoundBody): void;
  /** Drops the bursts not yet served and the proxy's 404s (a test's own, at its end). */
  clearInjected(): void;
  /** Every request, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Bytes of every answer body sent since the start (what clients had to read). */
  readonly bytesServed: number;
  clearRequests(): void;
  /** Adds users without HTTP; throws `SCIM_UNIQUENESS_CONFLICT` on a taken userName. */
  seedUsers(
    users: Array<{ userName: string; displayName?: string; active?: boolean; lastLogon?: string }>,
  ): Array<{ id: string; userName: string }>;
  /** Adds groups without HTTP; member values are stored as given. */
  seedGroups(
    groups: Array<{ displayName: string; members?: string[] }>,
  ): Array<{ id: string; displayName: string }>;
  /** A copy of the stored user (no password), by SCIM id or userName. */
  getUser(idOrUserName: string): Record<string, unknown> | undefined;
  /** A copy of the stored group, by SCIM id or displayName. */
  getGroup(idOrDisplayName: string): Record<string, unknown> | undefined;
  /** Copies of every stored user (no passwords) and group, in creation order: the committed state. */
  listUsers(): Array<Record<string, unknown>>;
  listGroups(): Array<Record<string, unknown>>;
  /** Whether the server holds a password for the user (set on create or by PATCH, and not ignored). */
  hasPassword(idOrUserName: string): boolean;
  /** Sets the last logon a user reports under `quirks.lastLogonAttribute`. */
  setLastLogon(userName: string, iso: string): void;
  /**
   * Ids of the groups whose members name the user, by its SCIM id or its userName (member
   * values may be either); for a value naming no user, the groups holding that value.
   */
  groupIdsOf(userIdOrUserName: string): string[];
  /** Every user and group: what `restore` takes. */
  snapshot(): ScimStoreSnapshot;
  /** Changes committed through the API, in commit order (seeding records nothing). */
  truthLog(): readonly TruthEvent[];
  clearTruthLog(): void;
  /**
   * Sets or (undefined) removes the seeded fault plan, applied after the bursts of
   * `injectThrottle`/`injectServerErrors`; decisions restart from its seed, counts from 0.
   */
  setFaults(plan: SandboxFaultPlan | undefined): void;
  /** Faults the plan injected since the start or the last `setFaults` (bursts not included). */
  faultCounts(): Record<SandboxFaultKind, number>;
  close(): Promise<void>;
}
