import { loadConfig, type AppConfig } from '../config/app-config';
import type { ConnectorSettings } from '../config/connector-settings';
import type { Connector } from '../connectors/connector';
import { connectorSettingsKinds } from '../connectors/connector-kinds';
import { ProvisioningError } from '../domain/errors';
import { silentLogger } from '../domain/logger';
import { ConnectorRegistry } from '../connectors/connector-registry';
import { startSandboxConnectors, type SandboxConnectors } from '../runtime/sandbox-connectors';
import { startServiceRuntime, type ServiceRuntime } from '../runtime/service-runtime';
import { LocalSecretStore } from '../secrets/local-secret-store';
import type { SecretStore } from '../secrets/secret-store';

export interface CliContext {
  config: AppConfig;
  secrets: SecretStore;
  settings(name: string): ConnectorSettings;
  connector(name: string): Connector;
  /**
   * The service itself (stores and the orchestrations of production on the local replay
   * driver), started on first use: `provision` runs requests through it.
   */
  service(): Promise<ServiceRuntime>;
  /** Set when the CLI runs against its own sandboxes (nothing configured). */
  sandboxes?: SandboxConnectors;
  close(): Promise<void>;
}

/**
 * The configured connectors, or, with none configured, sandboxes on loopback: so that
 * every command works on a fresh clone and does something real. Connectors come from the
 * one registry the service uses (src/runtime/connector-registry.ts).
 */
export async function openCliContext(env: Record<string, string | undefined>): Promise<CliContext> {
  let config = loadConfig(env, connectorSettingsKinds());
  if (config.secretStore.provider !== 'local') {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      'setting SECRET_STORE: the CLI reads secrets from the local store only for now',
    );
  }
  let sandboxes: SandboxConnectors | undefined;
  let secretValues = config.secretStore.values;
  if (config.connectors.length === 0) {
    sandboxes = await startSandboxConnectors();
    config = { ...config, connectors: sandboxes.settings };
    secretValues = { ...secretValues, ...sandboxes.secrets };
  }
  const secrets = new LocalSecretStore(secretValues);
  const registry = new ConnectorRegistry(config, secrets, silentLogger, sandboxes?.trustedCa);
  let service: Promise<ServiceRuntime> | undefined;
  const settings = (name: string): ConnectorSettings => {
    const found = registry.settings(name);
    if (found === undefined) throw unknownConnector(name, registry.names());
    return found;
  };
  return {
    config,
    secrets,
    settings,
    connector(name) {
      const connector = registry.get(name);
      if (connector === undefined) throw unknownConnector(name, registry.names());
      return connector;
    },
    service() {
      service ??= startServiceRuntime({
        config,
        logger: silentLogger,
        secrets,
        registry,
        ...(config.storage === undefined ? {} : { storage: config.storage }),
        ...(sandboxes === undefined ? {} : { trustedCa: sandboxes.trustedCa }),
      });
      return service;
    },
    ...(sandboxes === undefined ? {} : { sandboxes }),
    async close() {
      if (service !== undefined) await (await service).close();
      await registry.close();
      await sandboxes?.close();
    },
  };
}

function unknownConnector(name: string, known: string[]): ProvisioningError {
  return new ProvisioningError(
    'CONNECTOR_NOT_FOUND',
    `unknown connector "${name}"; configured: ${known.join(', ')}`,
    { object: name },
  );
}
