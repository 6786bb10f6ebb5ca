import { clockDeps, settingsOfKind, type ConnectorKindDescriptor } from '../connector-kind';
import { createGraphConnector } from './graph-connector';

/** Connector B (spec: Connector B): Microsoft Graph v1.0 as an app. No compatibility run. */
export const GRAPH_KIND: ConnectorKindDescriptor = {
  kind: 'graph',
  catalogueJobType: 'Import Directory Groups',
  create(settings, deps) {
    const graph = settingsOfKind(settings, 'graph');
    const ca = deps.trustedCa?.[graph.name];
    return createGraphConnector(graph, {
      secrets: deps.secrets,
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...(ca === undefined ? {} : { ca }),
      ...clockDeps(deps.clock),
    });
  },
};
