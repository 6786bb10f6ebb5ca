/**
 * The API's answers as the console reads them (GET /api/openapi.json is the contract). The
 * console is a separate client: it imports nothing of the server, reads fields it knows and
 * shows any others as they are, so a field the API adds later is seen, not lost.
 */

export type RequestStatus = 'pending' | 'running' | 'succeeded' | 'failed';
export type StepState = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';

export interface ApiErrorBody {
  code: string;
  message: string;
  object?: string;
  problems?: { path: string; message: string }[];
  details?: Record<string, unknown>;
  signIn?: string;
  [more: string]: unknown;
}

export interface Caller {
  /** `function key` or `principal`. */
  kind: string;
  name?: string;
  identityProvider?: string;
  roles: string[];
}

export interface ConnectorInfo {
  name: string;
  kind: string;
  catalogueJobType: string;
  /** Absent where the connector cannot be reconciled. */
  reconciliationJobType?: string;
  features: { compatibilityRun: boolean; groupStructure: boolean; inheritedMemberships: boolean };
  /** As it was when the list was read: a page that shows it reads the list again. */
  quarantine?: Quarantine;
}

/** A failure as the API names it: its code and a message without secrets. */
export interface ErrorSummary {
  code: string;
  message: string;
  at?: string;
}

/**
 * A connector's quarantine: while its target fails every request, its requests are held (not
 * failed) and a probe looks at the target with growing intervals.
 */
export interface Quarantine {
  state: 'quarantined' | 'active';
  since?: string;
  reason?: ErrorSummary;
  lastError?: ErrorSummary;
  probes?: number;
  lastProbeAt?: string;
  nextProbeAt?: string;
  heldRequests: number;
  held?: { requestId: string; since: string }[];
  releasedAt?: string;
  releasedBy?: 'probe' | 'operator';
  /** Who released it, where an operator did: a signed-in caller's name, or which key. */
  releasedByName?: string;
  [more: string]: unknown;
}

/** Why and since when a request waits: its connector is quarantined, or its target throttles. */
export interface RequestHold {
  cause: 'quarantine' | 'throttling';
  since: string;
  quarantinedSince?: string;
  reason: ErrorSummary;
  nextCheckAt: string;
}

/**
 * Who asked, why, and the governance workflow's case: what the caller sent with the request;
 * and who the service saw submit it (a signed-in name, or the key), absent in older records.
 */
export interface RequestContext {
  requestedBy?: string;
  reason?: string;
  correlationId?: string;
  submittedBy?: string;
}

export interface RequestListItem extends RequestContext {
  requestId: string;
  connector: string;
  accountId: string;
  actions: string[];
  status: RequestStatus;
  source: string;
  receivedAt: string;
  finishedAt?: string;
  [more: string]: unknown;
}

export interface RequestList {
  requests: RequestListItem[];
  continuationToken?: string;
}

export interface StepChange {
  change: string;
  groupId?: string;
  groupName?: string;
  [more: string]: unknown;
}

export interface GroupName {
  id: string;
  name?: string;
  displayName?: string;
}

export interface StepView {
  index: number;
  action: string;
  groups?: string[];
  state: StepState;
  changes: StepChange[];
  notices: string[];
  error?: ApiErrorBody;
  startedAt?: string;
  finishedAt?: string;
  [more: string]: unknown;
}

export interface RequestView extends RequestContext {
  requestId: string;
  connector: string;
  accountId: string;
  status: RequestStatus;
  steps: StepView[];
  hold?: RequestHold;
  /** About the request as a whole: the connector's credential expiring soon, or expired. */
  notices?: string[];
  startedAt?: string;
  finishedAt?: string;
  runtimeStatus?: string;
  [more: string]: unknown;
}

/** A request's preview: what each step would change, notice and meet; nothing was written. */
export interface RequestPlan extends RequestContext {
  mode: 'preview';
  connector: string;
  accountId: string;
  status: 'succeeded' | 'failed';
  steps: StepView[];
  notices: string[];
  readAt: string;
  [more: string]: unknown;
}

/** A preview whose reads were slow: a job that holds the plan as its result. */
export interface PreviewJob {
  mode: 'preview';
  jobId: string;
  type: string;
  statusUrl: string;
}

export interface GroupLink {
  id: string;
  displayName: string;
}

export interface NestedNotice {
  kind: string;
  message: string;
  groupIds: string[];
}

export interface InheritedMembership extends GroupLink {
  path: GroupLink[];
  alsoDirect?: boolean;
}

export interface LastLogon {
  /** `found`, `none found` or `not available`. */
  status: string;
  value?: string;
  detail?: string;
}

export interface AccountView {
  connector: string;
  account: {
    id: string;
    accountId: string;
    displayName?: string;
    /** Absent when the target showed no state (a SCIM user without `active`). */
    enabled?: boolean;
    [more: string]: unknown;
  };
  lastLogon?: LastLogon;
  directMemberships?: GroupLink[];
  effectiveInheritedMemberships?: InheritedMembership[];
  notices?: (NestedNotice | string)[];
  [more: string]: unknown;
}

export interface StructureGroup extends GroupLink {
  depth: number;
  path: GroupLink[];
  memberCount?: number;
  [more: string]: unknown;
}

export interface GroupStructure {
  root: GroupLink;
  groups: StructureGroup[];
  edges: { from: string; to: string }[];
  notices: NestedNotice[];
  complete: boolean;
  stats?: Record<string, unknown>;
  [more: string]: unknown;
}

export interface CatalogueRole {
  connector: string;
  groupId: string;
  displayName: string;
  targetName: string;
  writable: boolean;
  notWritableReason?: string;
  status: 'present' | 'gone';
  firstImportedAt: string;
  lastImportedAt: string;
  lastSeenJobId: string;
  goneSince?: string;
  [more: string]: unknown;
}

export interface JournalEntry extends RequestContext {
  key: string;
  connector: string;
  accountId: string;
  requestId: string;
  step: number;
  change: string;
  groupId?: string;
  groupName?: string;
  at: string;
  [more: string]: unknown;
}

export interface JournalPage {
  entries: JournalEntry[];
  continuationToken?: string;
}

export interface JobView {
  jobId: string;
  type: string;
  connector: string;
  status: 'running' | 'succeeded' | 'failed';
  startedAt: string;
  finishedAt?: string;
  result?: unknown;
  error?: ApiErrorBody;
  /**
   * How far a running job got, where it says: a catalogue import counts the groups it read and
   * wrote (it cannot know the total before the last page); `done`/`total` where a job knows both.
   */
  progress?: {
    done?: number;
    total?: number;
    groupsRead?: number;
    groupsApplied?: number;
    [more: string]: unknown;
  };
  [more: string]: unknown;
}

export interface StatusFinding {
  name: string;
  /** `ok`, `failed`; for permissions `granted`, `missing`, `not verified`. */
  outcome: string;
  /** What a permission finding rests on: `probe` (proof) or `token` (a hint). */
  evidence?: string;
  detail: string;
  [more: string]: unknown;
}

export interface StatusResult {
  connector: string;
  kind: string;
  ok: boolean;
  summary: string;
  findings: StatusFinding[];
  /** The code the check failed with (GRAPH_CLIENT_SECRET_EXPIRED, GRAPH_TOKEN_FAILED, ...). */
  error?: { code: string; message: string };
  credential?: CredentialState;
  [more: string]: unknown;
}

/** A credential's expiry: GET /health and the status check. */
export interface CredentialState {
  expiresOn: string;
  source: 'secret store' | 'setting';
  daysLeft: number;
  expired: boolean;
}

/** How a part the service depends on answered (GET /health). */
export interface PartHealth {
  status: 'ok' | 'failing' | 'not checked';
  detail: string;
  error?: string;
}

/** What the service last saw of a connector (GET /health). */
export interface ConnectorHealth {
  name: string;
  kind: string;
  /** It keeps a credential that expires (Graph: the client secret). */
  expiringCredential: boolean;
  credential?: CredentialState;
  /** The quarantine's state, since, reason, heldRequests and nextProbeAt, and how the last one ended. */
  quarantine?: Quarantine;
  /** SCIM: whether the server's user groups attribute was seen cut (its silence not believed). */
  userGroups?: {
    verdict: 'cut' | 'complete';
    why: string;
    at: string;
    by: 'connector' | 'compatibility run' | 'operator';
    jobId?: string;
    /** Who ended a cut, where an operator did (`POST .../user-groups/end-cut`). */
    byName?: string;
    /** When an operator ended it. */
    endedAt?: string;
  };
  lastStatusCheck?: {
    at: string;
    ok: boolean;
    summary: string;
    error?: { code: string; message: string };
  };
  lastImport?: {
    at: string;
    jobId?: string;
    ok: boolean;
    mode?: string;
    groups?: number;
    error?: { code: string; message: string };
  };
  lastReconciliation?: {
    at: string;
    jobId: string;
    ok: boolean;
    mode?: string;
    found?: number;
    open?: number;
    incomplete?: number;
    waiting?: number;
    error?: { code: string; message: string };
  };
  [more: string]: unknown;
}

/** GET /health. */
export interface HealthReport {
  status: 'ok' | 'degraded' | 'failing';
  reasons: string[];
  checkedAt: string;
  storage: PartHealth;
  secretStore: PartHealth;
  connectors: ConnectorHealth[];
}

export interface HttpExchange {
  request: string;
  requestBody?: string;
  status: number | string;
  answer: string;
  [more: string]: unknown;
}

export interface SettingValue {
  setting: string;
  value: string;
}

export interface CompatibilityCheck {
  /** The part of the point it is about: `co`, `password`, `member value`... */
  aspect?: string;
  holds?: boolean | null;
  note: string;
  evidence: HttpExchange[];
  withSetting?: SettingValue;
  [more: string]: unknown;
}

export interface CompatibilityPoint {
  number: number;
  title: string;
  /** `fits`, `does not fit`, `could not tell`. */
  outcome: string;
  reason?: string;
  advice?: string;
  fitsWith?: SettingValue[];
  checks: CompatibilityCheck[];
  [more: string]: unknown;
}

export interface SuggestedSetting extends SettingValue {
  point: number;
  tried: boolean;
  reason: string;
}

export interface ActionVerdict {
  action: string;
  /** `works`, `will fail`, `untested`. */
  outcome: string;
  reason: string;
  point?: number;
  needs?: SettingValue[];
}

/** A compatibility run's result: the six points, the settings to use, and what will work. */
export interface CompatibilityReport {
  connector: string;
  at?: string;
  jobId?: string;
  /** `fits`, `fits with the suggested settings`, `does not fit`, `could not tell`. */
  verdict?: string;
  summary?: string;
  points: CompatibilityPoint[];
  suggestedSettings?: SuggestedSetting[];
  actions?: ActionVerdict[];
  judgedSettings?: Record<string, string>;
  evidenceDropped?: boolean;
  /** SCIM: whether the user's `groups` attribute listed the membership the run made. */
  userGroups?: { outcome: string; note: string; evidence: HttpExchange[]; reliedOn?: boolean };
  /** The effective changes the run made on the target (journaled under its job). */
  changes?: Array<{
    step: number;
    accountId: string;
    change: string;
    groupName?: string;
    at: string;
  }>;
  [more: string]: unknown;
}

/** What the status check says of the last compatibility run (null: none kept yet). */
export interface LastRunSummary {
  at: string;
  verdict: string;
  summary: string;
  jobId?: string;
}

export type DriftType =
  | 'memberAddedOutside'
  | 'memberRemovedOutside'
  | 'accountDeletedOutside'
  | 'accountStateChangedOutside'
  | 'unlinkedMember';

/** A finding of the drift report (`GET /connectors/{name}/drift`). */
export interface DriftFinding {
  findingId: string;
  connector: string;
  type: DriftType;
  status: 'open' | 'closed';
  accountId?: string;
  targetId: string;
  memberName?: string;
  groupId?: string;
  groupName?: string;
  expectedEnabled?: boolean;
  observedEnabled?: boolean;
  firstSeen: string;
  lastConfirmed: string;
  closedAt?: string;
  closedBecause?: string;
  evidence: string[];
  restore?: { requestId: string; at: string };
  [more: string]: unknown;
}

export interface DriftPage {
  findings: DriftFinding[];
  continuationToken?: string;
}

/** What `POST /connectors/{name}/drift/restore` started. */
export interface DriftRestoreAnswer {
  restores: {
    requestId: string;
    accountId: string;
    findingIds: string[];
    /** Whether the findings, read back, name the request; false comes with a notice saying why. */
    marked?: boolean;
    notice?: string;
    alreadyRunning?: boolean;
    /** The same restore ran before as this request, which has ended: nothing started now. */
    alreadyEnded?: { status: string };
  }[];
  /** Accounts whose restore request could not start; the restores beside them run. */
  failed: { accountId: string; findingIds: string[]; error: ErrorSummary }[];
  skipped: { findingId: string; reason: string }[];
}

/** What `POST /connectors/{name}/drift/restore` with `"mode": "preview"` answers. */
export interface DriftRestorePreview {
  mode: 'preview';
  restores: { accountId: string; findingIds: string[]; plan: RequestPlan }[];
  skipped: { findingId: string; reason: string }[];
}
