import type { ConnectorSettings } from '../config/connector-settings';
import { ProvisioningError } from '../domain/errors';
import type { Logger } from '../domain/logger';
import type { SecretStore } from '../secrets/secret-store';
import type { Connector } from './connector';
import type { CompatibilityReport } from './scim/compatibility-report';

/** What building a connector needs besides its settings. */
export interface ConnectorDependencies {
  secrets: SecretStore;
  logger?: Logger;
  /** Extra CA certificates to trust, by connector name (sandboxes with self-signed certificates). */
  trustedCa?: Record<string, string>;
  /** The clock retries and throttling wait on (real time sped up in fault suites and benchmarks). */
  clock?: { now(): number; sleep(ms: number): Promise<void> };
}

/**
 * What a connector kind is and can do, declared once next to its adapter: the API, timers,
 * activities and the CLI ask this, never the kind's name. A new kind is a folder with its
 * adapter and descriptor, and one line in src/connectors/connector-kinds.ts.
 */
export interface ConnectorKindDescriptor {
  /** The `kind` of its connectors' settings. */
  readonly kind: string;
  /** The job type of its catalogue import (spec: "Import SCIM groups", "Import Directory Groups"). */
  readonly catalogueJobType: string;
  /** Builds one connector from its validated settings (once per process). */
  create(settings: ConnectorSettings, deps: ConnectorDependencies): Connector;
  /** The test run with a test account (spec: compatibility points), where the kind has one. */
  compatibilityRun?(
    settings: ConnectorSettings,
    secrets: SecretStore,
    options: { logger?: Logger; groupName?: string },
  ): Promise<CompatibilityReport>;
}

/** A clock's functions, bound: connectors call them unbound. */
export function clockDeps(clock: ConnectorDependencies['clock']) {
  return clock === undefined
    ? {}
    : { sleep: (ms: number) => clock.sleep(ms), now: () => clock.now() };
}

/** The settings of a connector of `kind`; CONFIG_INVALID naming the connector otherwise. */
export function settingsOfKind<K extends ConnectorSettings['kind']>(
  settings: ConnectorSettings,
  kind: K,
): Extract<ConnectorSettings, { kind: K }> {
  if (settings.kind !== kind) {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `connector "${settings.name}" is of kind "${settings.kind}", not "${kind}"`,
      { object: settings.name },
    );
  }
  return settings as Extract<ConnectorSettings, { kind: K }>;
}
