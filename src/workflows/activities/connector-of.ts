import type { Connector } from '../../connectors/connector';
import { ProvisioningError } from '../../domain/errors';
import type { WorkflowServices } from '../workflow-services';

/** The named connector; a request for an unknown one fails as data, not as a crash. */
export function connectorOf(services: WorkflowServices, name: string): Connector {
  const connector = services.registry.get(name);
  if (connector === undefined) {
    throw new ProvisioningError('CONNECTOR_NOT_FOUND', `unknown connector "${name}"`, {
      object: name,
    });
  }
  return connector;
}
