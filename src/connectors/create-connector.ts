import type { ConnectorSettings } from '../config/connector-settings';
import type { Connector } from './connector';
import type { ConnectorDependencies } from './connector-kind';
import { connectorKind } from './connector-kinds';

export type { ConnectorDependencies };

/** Builds one connector from validated settings, through its kind: once per process. */
export function createConnector(
  settings: ConnectorSettings,
  deps: ConnectorDependencies,
): Connector {
  return connectorKind(settings).create(settings, deps);
}
