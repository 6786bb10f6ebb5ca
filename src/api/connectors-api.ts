import type { HttpResponseInit } from '@azure/functions';
import { connectorKind } from '../connectors/connector-kinds';
import type { ApiDeps } from './api-deps';
import { quarantinesOf } from './quarantine-api';

/**
 * `GET /api/connectors`: the configured connectors, each with its kind and what it can do,
 * as the kind declares it: a caller (the console, a workflow) offers only what works; and
 * whether it is quarantined (issue 14).
 */
export function listConnectorsHandler(deps: Pick<ApiDeps, 'services'>) {
  return async (): Promise<HttpResponseInit> => {
    const services = await deps.services();
    const { registry } = services;
    const quarantines = await quarantinesOf(services);
    const connectors = registry.names().map((name) => {
      const connector = registry.get(name)!;
      const kind = connectorKind(connector);
      return {
        name,
        kind: connector.kind,
        catalogueJobType: kind.catalogueJobType,
        ...(kind.reconciliationJobType === undefined
          ? {}
          : { reconciliationJobType: kind.reconciliationJobType }),
        capabilities: connector.capabilities,
        features: {
          compatibilityRun: kind.compatibilityRun !== undefined,
          groupStructure: connector.readGroupStructure !== undefined,
          inheritedMemberships: connector.readInheritedMemberships !== undefined,
        },
        quarantine: quarantines.get(name) ?? { state: 'active', heldRequests: 0 },
      };
    });
    return { status: 200, jsonBody: { connectors } };
  };
}
