import type { HealthProbe } from '../../domain/health-probe';
import { probeGraphHealth } from './health-probe';
import type { GraphConnectorSettings } from './graph-settings';
import type { AccountChanges, AccountProfile, TargetAccount } from '../../domain/account';
import type { GroupChangeFeed } from '../../domain/catalogue-changes';
import { credentialState, type CredentialState } from '../../domain/credential-expiry';
import type { ErrorCode } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import { silentLogger, type Logger } from '../../domain/logger';
import type { NestedGroupLimits } from '../../domain/nested-groups';
import type { SecretStore } from '../../secrets/secret-store';
import type {
  Connector,
  ConnectorCapabilities,
  CreateAccountAnswer,
  DeleteAccountAnswer,
  LastLogonResult,
  MembershipRead,
  MembershipWriteAnswer,
  SetEnabledAnswer,
  StatusResult,
  UnlinkedAbsence,
} from '../connector';
import type { ConnectorTelemetry } from '../connector-telemetry';
import { quotaUtilization, type QuotaBudget } from '../http/quota-budget';
import { HttpTransport, transportOptionsOf } from '../http/transport';
import { setEnabled } from './account-state';
import * as accounts from './graph-accounts';
import { toUserPrincipalName } from './graph-user-payload';
import type { GraphContext } from './graph-context';
import { graphGroupChanges } from './graph-group-changes';
import { graphReconciliation } from './graph-reconciliation';
import type { ReconciliationReads } from '../../domain/reconciliation-reads';
import * as groups from './graph-groups';
import { GraphHttp } from './graph-http';
import { sharedGraphQuota } from './graph-quota';
import { readLastLogon } from './graph-last-logon';
import * as memberships from './graph-memberships';
import { checkStatus, type StatusOptions } from './graph-status';
import {
  readGroupStructure,
  readInheritedMemberships,
  type GroupStructure,
  type InheritedMembershipsResult,
} from './nested-group-reads';
import { GraphTokenProvider } from './token-provider';

export interface GraphConnectorDeps {
  /** Resolves the client secret by its name (settings hold the name only). */
  secrets: SecretStore;
  logger?: Logger;
  /** An extra CA certificate (PEM) to trust: the sandbox's self-signed one. */
  ca?: string;
  /** Waits for retries and read-backs; a virtual clock in tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Metrics and traces of its calls and token acquisitions. */
  telemetry?: ConnectorTelemetry;
}

/**
 * Spec: Membership write procedure, step 5: memberships may take up to 30 s to show; the
 * same window is given to new accounts and account changes (graph-behaviour.md).
 */
export const GRAPH_CAPABILITIES: ConnectorCapabilities = {
  visibilityWindowMs: 30_000,
  membershipReadScope: 'all',
  // graph-behaviour.md: a $batch envelope carries at most 20 requests.
  membershipWriteBatchSize: 20,
  membershipWritesSayIfInPlace: true,
};

/**
 * Connector B: Microsoft Graph v1.0 with MSAL client credentials (spec: Connector B). Every
 * call goes through the shared transport (timeouts, retries with Retry-After, a pool per
 * origin); every answer outside what a call accepts goes through the one error mapper.
 */
export class GraphConnector implements Connector {
  readonly kind = 'graph' as const;
  readonly capabilities = GRAPH_CAPABILITIES;
  readonly name: string;
  /** Incremental catalogue imports read `groups/delta`. */
  readonly groupChanges: GroupChangeFeed;
  readonly reconciliation: ReconciliationReads;
  private readonly context: GraphContext;
  private readonly transport: HttpTransport;
  private readonly quota: QuotaBudget;

  constructor(settings: GraphConnectorSettings, deps: GraphConnectorDeps) {
    this.name = settings.name;
    const logger = deps.logger ?? silentLogger;
    const sleep =
      deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const now = deps.now ?? Date.now;
    const tokens = new GraphTokenProvider(settings, {
      secrets: deps.secrets,
      logger,
      now,
      ...(deps.ca === undefined ? {} : { ca: deps.ca }),
      ...(deps.telemetry === undefined
        ? {}
        : { onFailure: (code: ErrorCode) => deps.telemetry?.tokenFailed(code) }),
    });
    const transientSecrets = new Set<string>();
    const quota = sharedGraphQuota(settings, settings.quota, now());
    this.quota = quota;
    this.transport = new HttpTransport({
      budget: quota,
      ...transportOptionsOf(settings),
      authorize: () => tokens.authorizationHeader(),
      secrets: () => [...tokens.knownSecrets(), ...transientSecrets],
      sleep,
      now,
      logger,
      ...(deps.ca === undefined ? {} : { ca: deps.ca }),
      ...(deps.telemetry === undefined ? {} : { telemetry: deps.telemetry.calls }),
    });
    this.context = {
      settings,
      http: new GraphHttp(settings.graphEndpoint, this.transport, quota, now),
      tokens,
      logger,
      sleep,
      now,
      transientSecrets,
    };
    this.groupChanges = graphGroupChanges(this.context);
    this.reconciliation = graphReconciliation(this.context);
  }

  /** HTTP calls sent to Graph so far (retries not counted). */
  get graphCalls(): number {
    return this.context.http.calls;
  }

  /** Spec: "Check status": a token was obtained. With `probe`, also the probe reads. */
  checkStatus(options?: StatusOptions): Promise<StatusResult> {
    return checkStatus(this.context, options);
  }

  probeHealth(): Promise<HealthProbe> {
    return probeGraphHealth(this.context);
  }

  /** The share of the app's quota in the tenant the pacing has used (shared by its connectors). */
  quotaUtilization(): number {
    return quotaUtilization(this.quota, this.context.now());
  }

  /** When the client secret expires (secret store or setting); undefined when nothing says. */
  async credentialState(): Promise<CredentialState | undefined> {
    const expiry = await this.context.tokens.secretExpiry();
    return expiry === undefined ? undefined : credentialState(expiry, this.context.now());
  }

  listAccounts(): AsyncIterable<TargetAccount> {
    return accounts.listAccounts(this.context);
  }

  /** The UPN the account ID stands for (a bare name completed), in lower case. */
  accountKey(accountId: string): string {
    return toUserPrincipalName(accountId, this.context.settings.upnDomain).toLowerCase();
  }

  findAccount(accountId: string): Promise<TargetAccount | undefined> {
    return accounts.findAccount(this.context, accountId);
  }

  /**
   * No read proves a user absent (a replica may not show one made a moment ago); Graph's
   * delete addresses the user by its userPrincipalName and answers 404 only for a user that
   * is not there (graph-behaviour.md, Eventual consistency).
   */
  proveAbsent(accountId: string): Promise<UnlinkedAbsence> {
    const upn = toUserPrincipalName(accountId, this.context.settings.upnDomain);
    return Promise.resolve({ outcome: 'byName', account: { id: upn, accountId: upn } });
  }

  readAccount(account: TargetAccount): Promise<TargetAccount | undefined> {
    return accounts.readAccount(this.context, account);
  }

  createAccount(profile: AccountProfile, password?: string): Promise<CreateAccountAnswer> {
    return accounts.createAccount(this.context, profile, password);
  }

  updateAccount(account: TargetAccount, changes: AccountChanges): Promise<void> {
    return accounts.updateAccount(this.context, account, changes);
  }

  setPassword(account: TargetAccount, password: string): Promise<void> {
    return accounts.setPassword(this.context, account, password);
  }

  setEnabled(account: TargetAccount, enabled: boolean): Promise<SetEnabledAnswer> {
    return setEnabled(this.context, account, enabled);
  }

  deleteAccount(account: TargetAccount): Promise<DeleteAccountAnswer> {
    return accounts.deleteAccount(this.context, account);
  }

  importGroups(): AsyncIterable<GroupRef> {
    return groups.importGroups(this.context);
  }

  readGroup(groupId: string): Promise<GroupRef | undefined> {
    return groups.readGroup(this.context, groupId);
  }

  findGroup(displayName: string): Promise<GroupRef | undefined> {
    return groups.findGroup(this.context, displayName);
  }

  searchGroups(text: string): Promise<GroupRef[]> {
    return groups.searchGroups(this.context, text);
  }

  /**
   * Every direct group of the account (scope `all`): `groupIds` is not needed to read, and
   * the account's own `memberOf`, read to its last page, is the target's answer about it.
   */
  readMemberships(account: TargetAccount, _groupIds: readonly string[]): Promise<MembershipRead> {
    return memberships.readMemberships(this.context, account);
  }

  writeMemberships(
    account: TargetAccount,
    changes: { add: readonly string[]; remove: readonly string[] },
    names: Record<string, string>,
    writable: readonly string[] = [],
  ): Promise<MembershipWriteAnswer[]> {
    return memberships.writeMemberships(this.context, account, changes, names, writable);
  }

  readLastLogon(account: TargetAccount): Promise<LastLogonResult> {
    return readLastLogon(this.context, account);
  }

  /** Spec: Nested groups: the structure below a group, up to 500 groups and 32 levels. */
  readGroupStructure(groupId: string, limits?: NestedGroupLimits): Promise<GroupStructure> {
    return readGroupStructure(this.context, groupId, limits);
  }

  /** Spec: Nested groups: "Effective inherited memberships" of an account, with paths. */
  readInheritedMemberships(
    account: TargetAccount,
    limits?: NestedGroupLimits,
  ): Promise<InheritedMembershipsResult> {
    return readInheritedMemberships(this.context, account, limits);
  }

  async close(): Promise<void> {
    await Promise.all([this.transport.close(), this.context.tokens.close()]);
  }
}

/**
 * Builds connector B for one connector's settings.
 *
 * @example
 * const graph = createGraphConnector(settings, { secrets: new LocalSecretStore({ 'entra-secret': '...' }) });
 * const status = await graph.checkStatus({ probe: true });
 */
export function createGraphConnector(
  settings: GraphConnectorSettings,
  deps: GraphConnectorDeps,
): GraphConnector {
  return new GraphConnector(settings, deps);
}
