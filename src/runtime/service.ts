import { processConfiguration } from '../config/app-config';
import { ConnectorRegistry } from './connector-registry';

let registry: ConnectorRegistry | undefined;

/** The process's connector registry, built on first use from the validated configuration. */
export function serviceRegistry(): ConnectorRegistry {
  registry ??= ConnectorRegistry.fromConfig(processConfiguration());
  return registry;
}
