import type { ConnectorSettings } from '../config/connector-settings';
import type { Connector } from '../connectors/connector';
import { ScimConnector } from '../connectors/scim/scim-connector';
import type { Logger } from '../domain/logger';
import type { SecretStore } from '../secrets/secret-store';

export interface ConnectorDependencies {
  secrets: SecretStore;
  logger?: Logger;
  /** Extra CA certificates to trust, by connector name (sandboxes with self-signed certificates). */
  trustedCa?: Record<string, string>;
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
      });
    case 'graph':
      throw new Error('connector kind "graph" is not wired yet');
  }
}
