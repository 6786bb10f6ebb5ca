import type { AppConfig } from '../config/app-config';
import type { ConnectorSettings } from '../config/connector-settings';
import type { Connector } from './connector';
import type { Logger } from '../domain/logger';
import type { UserGroupsVerdicts } from '../domain/user-groups-verdict';
import type { SecretStore } from '../secrets/secret-store';
import type { ConnectorKindDescriptor } from './connector-kind';
import type { ConnectorTelemetry } from './connector-telemetry';
import { connectorKind } from './connector-kinds';
import { createConnector, type ConnectorDependencies } from './create-connector';
import { observedConnector, type TargetObserver } from './observed-connector';

/**
 * The configured connectors of this process, each built once and kept: the one registry of
 * the Functions app, the local host and the CLI; an unknown name is `undefined` (callers say
 * CONNECTOR_NOT_FOUND).
 */
export class ConnectorRegistry {
  private readonly built = new Map<string, Connector>();
  private readonly observed = new Map<string, Connector>();
  private observer: TargetObserver | undefined;
  private verdicts: UserGroupsVerdicts | undefined;
  /**
   * What every connector is given to keep its verdicts in: the store set by
   * {@link keepVerdictsIn} when it is asked (connectors built before it was set use it too).
   */
  private readonly keptVerdicts: UserGroupsVerdicts = {
    readUserGroups: (connector) =>
      this.verdicts === undefined
        ? Promise.resolve(undefined)
        : this.verdicts.readUserGroups(connector),
    recordUserGroups: (connector, verdict) =>
      this.verdicts === undefined
        ? Promise.resolve()
        : this.verdicts.recordUserGroups(connector, verdict),
  };

  constructor(
    private readonly config: AppConfig,
    readonly secrets: SecretStore,
    private readonly logger?: Logger,
    private readonly trustedCa?: Record<string, string>,
    private readonly clock?: ConnectorDependencies['clock'],
    private readonly telemetry?: (connector: string) => ConnectorTelemetry,
  ) {}

  /** What the named connector's kind is and can do, or undefined for an unknown name. */
  kindOf(name: string): ConnectorKindDescriptor | undefined {
    const settings = this.settings(name);
    return settings === undefined ? undefined : connectorKind(settings);
  }

  /** The validated settings of the named connector, or undefined. */
  settings(name: string): ConnectorSettings | undefined {
    return this.config.connectors.find((s) => s.name === name);
  }

  /**
   * The keys of `account.attributes` the named connector writes (its Mapping's, as its kind
   * reads them from its settings), or undefined for an unknown name.
   */
  mappedAttributes(name: string): readonly string[] | undefined {
    const settings = this.settings(name);
    return settings === undefined ? undefined : connectorKind(settings).mappedAttributes(settings);
  }

  names(): string[] {
    return this.config.connectors.map((settings) => settings.name);
  }

  /**
   * Tells the observer how every target call of every connector ended, from now on: the
   * count that quarantines a connector whose target fails every request (issue 14).
   */
  observe(observer: TargetObserver): void {
    this.observer = observer;
    this.observed.clear();
  }

  /**
   * Where connectors keep what they learned of their targets from now on (the service's
   * `ConnectorStates`), so that every worker, and the next start, knows it.
   */
  keepVerdictsIn(store: UserGroupsVerdicts): void {
    this.verdicts = store;
  }

  /** The connector with this name, or undefined: callers answer 404. */
  get(name: string): Connector | undefined {
    const connector = this.build(name);
    if (connector === undefined || this.observer === undefined) return connector;
    let observed = this.observed.get(name);
    if (observed === undefined) {
      observed = observedConnector(connector, this.observer);
      this.observed.set(name, observed);
    }
    return observed;
  }

  /**
   * The named connector's canonical form of an account ID (`Connector.accountKey`): what the
   * service keeps the account's lease and record under. The ID as it is for an unknown
   * connector, or an ID the connector cannot take (no account can have it; the request
   * fails on it in its first step).
   */
  accountKey(name: string, accountId: string): string {
    const connector = this.build(name);
    if (connector === undefined) return accountId;
    try {
      return connector.accountKey(accountId);
    } catch {
      return accountId;
    }
  }

  private build(name: string): Connector | undefined {
    const existing = this.built.get(name);
    if (existing !== undefined) return existing;
    const settings = this.settings(name);
    if (settings === undefined) return undefined;
    const connector = createConnector(settings, {
      secrets: this.secrets,
      ...(this.logger === undefined ? {} : { logger: this.logger }),
      ...(this.trustedCa === undefined ? {} : { trustedCa: this.trustedCa }),
      ...(this.clock === undefined ? {} : { clock: this.clock }),
      ...(this.telemetry === undefined ? {} : { telemetry: this.telemetry }),
      userGroupsVerdicts: this.keptVerdicts,
    });
    this.built.set(name, connector);
    return connector;
  }

  async close(): Promise<void> {
    await Promise.all([...this.built.values()].map((connector) => connector.close()));
    this.built.clear();
    this.observed.clear();
  }
}
