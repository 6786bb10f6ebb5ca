import { clockDeps, settingsOfKind, type ConnectorKindDescriptor } from '../connector-kind';
import { runScimCompatibility } from './compatibility-run';
import { ScimConnector } from './scim-connector';

/** Connector A (spec: Connector A): a SCIM 2.0 client. */
export const SCIM_KIND: ConnectorKindDescriptor = {
  kind: 'scim',
  catalogueJobType: 'Import SCIM groups',
  create(settings, deps) {
    return new ScimConnector(settingsOfKind(settings, 'scim'), {
      secrets: deps.secrets,
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...clockDeps(deps.clock),
    });
  },
  compatibilityRun(settings, secrets, options) {
    return runScimCompatibility(settingsOfKind(settings, 'scim'), secrets, options);
  },
};
