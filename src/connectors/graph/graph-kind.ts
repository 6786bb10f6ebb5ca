import type { ConnectorSettings, GraphConnectorSettings } from '../../config/connector-settings';
import { ProvisioningError } from '../../domain/errors';
import { clockDeps, type ConnectorKindDescriptor } from '../connector-kind';
import { createGraphConnector } from './graph-connector';

/** Connector B (spec: Connector B): Microsoft Graph v1.0 as an app. No compatibility run. */
export const GRAPH_KIND: ConnectorKindDescriptor = {
  kind: 'graph',
  catalogueJobType: 'Import Directory Groups',
  create(settings, deps) {
    const graph = graphSettings(settings);
    const ca = deps.trustedCa?.[graph.name];
    return createGraphConnector(graph, {
      secrets: deps.secrets,
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...(ca === undefined ? {} : { ca }),
      ...clockDeps(deps.clock),
    });
  },
};

function graphSettings(settings: ConnectorSettings): GraphConnectorSettings {
  if (settings.kind !== 'graph') {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `connector "${settings.name}" is not a Graph connector`,
      {
        object: settings.name,
      },
    );
  }
  return settings;
}
