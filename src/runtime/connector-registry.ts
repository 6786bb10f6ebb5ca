import type { AppConfig } from '../config/app-config';
import type { Connector } from '../connectors/connector';
import { ProvisioningError } from '../domain/errors';
import type { Logger } from '../domain/logger';
import { LocalSecretStore } from '../secrets/local-secret-store';
import type { SecretStore } from '../secrets/secret-store';
import { createConnector } from './create-connector';

/** The connectors of this process, each built once and kept (DESIGN: src/runtime). */
export class ConnectorRegistry {
  private readonly built = new Map<string, Connector>();

  constructor(
    private readonly config: AppConfig,
    readonly secrets: SecretStore,
    private readonly logger?: Logger,
  ) {}

  static fromConfig(config: AppConfig, logger?: Logger): ConnectorRegistry {
    if (config.secretStore.provider !== 'local') {
      throw new ProvisioningError(
        'CONFIG_INVALID',
        'setting SECRET_STORE: "keyvault" is not available in this build yet; use "local"',
      );
    }
    return new ConnectorRegistry(config, new LocalSecretStore(config.secretStore.values), logger);
  }

  names(): string[] {
    return this.config.connectors.map((settings) => settings.name);
  }

  /** The connector with this name, or undefined: callers answer 404. */
  get(name: string): Connector | undefined {
    const existing = this.built.get(name);
    if (existing !== undefined) return existing;
    const settings = this.config.connectors.find((s) => s.name === name);
    if (settings === undefined) return undefined;
    const connector = createConnector(settings, {
      secrets: this.secrets,
      ...(this.logger === undefined ? {} : { logger: this.logger }),
    });
    this.built.set(name, connector);
    return connector;
  }

  async close(): Promise<void> {
    await Promise.all([...this.built.values()].map((connector) => connector.close()));
    this.built.clear();
  }
}
