import { clockDeps, type ConnectorKindDescriptor } from '../connector-kind';
import { createGraphConnector } from './graph-connector';
import { quotaConflicts } from './graph-quota';
import { graphConnectorSchema, type GraphConnectorSettings } from './graph-settings';

/** Connector B (spec: Connector B): Microsoft Graph v1.0 as an app. No compatibility run. */
export const GRAPH_KIND: ConnectorKindDescriptor<GraphConnectorSettings> = {
  kind: 'graph',
  settingsSchema: graphConnectorSchema,
  settingsConflicts: quotaConflicts,
  catalogueJobType: 'Import Directory Groups',
  reconciliationJobType: 'Reconcile Directory accounts',
  mappedAttributes: (settings) => Object.values(settings.mapping),
  create(settings, deps) {
    const ca = deps.trustedCa?.[settings.name];
    return createGraphConnector(settings, {
      secrets: deps.secrets,
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...(ca === undefined ? {} : { ca }),
      ...clockDeps(deps.clock),
      ...(deps.telemetry === undefined ? {} : { telemetry: deps.telemetry(settings.name) }),
    });
  },
};
