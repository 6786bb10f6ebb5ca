import type { ConnectorSettings } from '../config/connector-settings';
import type { Connector } from './connector';
import { createGraphConnector } from './graph/graph-connector';
import { ScimConnector } from './scim/scim-connector';
import type { Logger } from '../domain/logger';
import type { SecretStore } from '../secrets/secret-store';

export interface ConnectorDependencies {
  secrets: SecretStore;
  logger?: Logger;
  /** Extra CA certificates to trust, by connector name (sandboxes with self-signed certificates). */
  trustedCa?: Record<string, string>;
  /** The clock retries and throttling wait on (real time sped up in fault suites and benchmarks). */
  clock?: { now(): number; sleep(ms: number): Promise<void> };
}

/** Builds one connector from validated settings: once per process (DESIGN: src/runtime). */
export function createConnector(
  settings: ConnectorSettings,
  deps: ConnectorDependencies,
): Connector {
  switch (settings.kind) {
    case 'scim':
      return new ScimConnector(settings, {
        secrets: deps.secrets,
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...clockDeps(deps.clock),
      });
    case 'graph': {
      const ca = deps.trustedCa?.[settings.name];
      return createGraphConnector(settings, {
        secrets: deps.secrets,
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(ca === undefined ? {} : { ca }),
        ...clockDeps(deps.clock),
      });
    }
  }
}

/** A clock's functions, bound: connectors call them unbound. */
function clockDeps(clock: ConnectorDependencies['clock']) {
  return clock === undefined
    ? {}
    : { sleep: (ms: number) => clock.sleep(ms), now: () => clock.now() };
}
