import { loadConfig } from '../config/app-config';
import type { ConnectorSettings } from '../config/connector-settings';
import type { Connector } from '../connectors/connector';
import { ProvisioningError } from '../domain/errors';
import { createConnector } from '../runtime/create-connector';
import { startSandboxConnectors, type SandboxConnectors } from '../runtime/sandbox-connectors';
import { LocalSecretStore } from '../secrets/local-secret-store';
import type { SecretStore } from '../secrets/secret-store';

export interface CliContext {
  secrets: SecretStore;
  settings(name: string): ConnectorSettings;
  connector(name: string): Connector;
  /** Set when the CLI runs against its own sandboxes (nothing configured). */
  sandboxes?: SandboxConnectors;
  close(): Promise<void>;
}

/**
 * The configured connectors, or, with none configured, sandboxes on loopback: so that
 * every command works on a fresh clone and does something real.
 */
export async function openCliContext(env: Record<string, string | undefined>): Promise<CliContext> {
  const config = loadConfig(env);
  if (config.secretStore.provider !== 'local') {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      'setting SECRET_STORE: the CLI reads secrets from the local store only for now',
    );
  }
  let sandboxes: SandboxConnectors | undefined;
  let all = config.connectors;
  let secretValues = config.secretStore.values;
  if (all.length === 0) {
    sandboxes = await startSandboxConnectors();
    all = sandboxes.settings;
    secretValues = { ...secretValues, ...sandboxes.secrets };
  }
  const secrets = new LocalSecretStore(secretValues);
  const built = new Map<string, Connector>();
  const settings = (name: string): ConnectorSettings => {
    const found = all.find((s) => s.name === name);
    if (found === undefined) {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `unknown connector "${name}"; configured: ${all.map((s) => s.name).join(', ')}`,
        { object: name },
      );
    }
    return found;
  };
  return {
    secrets,
    settings,
    connector(name) {
      let connector = built.get(name);
      if (connector === undefined) {
        connector = createConnector(settings(name), {
          secrets,
          ...(sandboxes === undefined ? {} : { trustedCa: sandboxes.trustedCa }),
        });
        built.set(name, connector);
      }
      return connector;
    },
    ...(sandboxes === undefined ? {} : { sandboxes }),
    async close() {
      await Promise.all([...built.values()].map((c) => c.close()));
      await sandboxes?.close();
    },
  };
}
