import { loadConfig, type AppConfig } from '../config/app-config';
import { connectorSettingsKinds } from '../connectors/connector-kinds';

let processConfig: AppConfig | undefined;

/**
 * The configuration of this process, read once from its environment; each connector's
 * settings are validated by its kind's schema (src/connectors/connector-kinds.ts).
 */
export function processConfiguration(): AppConfig {
  processConfig ??= loadConfig(process.env, connectorSettingsKinds());
  return processConfig;
}
