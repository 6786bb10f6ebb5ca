import type { ConnectorSettings, ConnectorSettingsSchema } from '../config/connector-settings';
import type { Logger } from '../domain/logger';
import type { UserGroupsVerdicts } from '../domain/user-groups-verdict';
import type { SecretStore } from '../secrets/secret-store';
import type { Connector } from './connector';
import type { ConnectorTelemetry } from './connector-telemetry';
import type { CompatibilityReport } from './scim/compatibility-report';

/** What building a connector needs besides its settings. */
export interface ConnectorDependencies {
  secrets: SecretStore;
  logger?: Logger;
  /** Extra CA certificates to trust, by connector name (sandboxes with self-signed certificates). */
  trustedCa?: Record<string, string>;
  /** The clock retries and throttling wait on (real time sped up in fault suites and benchmarks). */
  clock?: { now(): number; sleep(ms: number): Promise<void> };
  /** Telemetry of the named connector: metrics and traces of its calls (default none). */
  telemetry?: (connector: string) => ConnectorTelemetry;
  /**
   * Where a SCIM connector keeps what it learned of the server's user `groups` attribute,
   * shared by every worker (default: nowhere, each connector learns for itself).
   */
  userGroupsVerdicts?: UserGroupsVerdicts;
}

/**
 * What a connector kind is and can do, declared once next to its adapter: configuration,
 * the API, timers, activities and the CLI ask this, never the kind's name. A new kind is a
 * folder with its adapter, settings schema and descriptor, and one line in
 * src/connectors/connector-kinds.ts.
 */
export interface ConnectorKindDescriptor<S extends ConnectorSettings = ConnectorSettings> {
  /** The `kind` of its connectors' settings. */
  readonly kind: string;
  /**
   * Validates its connectors' settings at start (invariant 6) and fills their defaults: the
   * kind's own fields beside the ones every kind shares (`commonConnectorFields`).
   */
  readonly settingsSchema: ConnectorSettingsSchema;
  /**
   * Problems among its connectors that are valid one by one but cannot run together, found
   * at start too: each message names the connectors and the setting.
   */
  settingsConflicts?(connectors: readonly S[]): string[];
  /** The job type of its catalogue import (spec: "Import SCIM groups", "Import Directory Groups"). */
  readonly catalogueJobType: string;
  /**
   * The job type of its reconciliation, where its connectors can be reconciled (they then
   * offer `reconciliation` reads): "Reconcile SCIM accounts", "Reconcile Directory accounts".
   */
  readonly reconciliationJobType?: string;
  /**
   * The keys of a request's `account.attributes` its connectors write (the values of their
   * Mapping): a request naming any other is refused before it starts, since the connector
   * would drop it without a word.
   */
  mappedAttributes(settings: S): readonly string[];
  /** Builds one connector from settings its own schema validated (once per process). */
  create(settings: S, deps: ConnectorDependencies): Connector;
  /** The test run with a test account (spec: compatibility points), where the kind has one. */
  compatibilityRun?(
    settings: S,
    secrets: SecretStore,
    options: { logger?: Logger; groupName?: string; jobId?: string },
  ): Promise<CompatibilityReport>;
}

/** A clock's functions, bound: connectors call them unbound. */
export function clockDeps(clock: ConnectorDependencies['clock']) {
  return clock === undefined
    ? {}
    : { sleep: (ms: number) => clock.sleep(ms), now: () => clock.now() };
}
