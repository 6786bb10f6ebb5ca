import { ProvisioningError } from '../../domain/errors';
import type { ConnectorSettings, ScimConnectorSettings } from '../../config/connector-settings';
import { clockDeps, type ConnectorKindDescriptor } from '../connector-kind';
import { runScimCompatibility } from './compatibility-run';
import { ScimConnector } from './scim-connector';

/** Connector A (spec: Connector A): a SCIM 2.0 client. */
export const SCIM_KIND: ConnectorKindDescriptor = {
  kind: 'scim',
  catalogueJobType: 'Import SCIM groups',
  create(settings, deps) {
    return new ScimConnector(scimSettings(settings), {
      secrets: deps.secrets,
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...clockDeps(deps.clock),
    });
  },
  compatibilityRun(settings, secrets, options) {
    return runScimCompatibility(scimSettings(settings), secrets, options);
  },
};

function scimSettings(settings: ConnectorSettings): ScimConnectorSettings {
  if (settings.kind !== 'scim') {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `connector "${settings.name}" is not a SCIM connector`,
      {
        object: settings.name,
      },
    );
  }
  return settings;
}
