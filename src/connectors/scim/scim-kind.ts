import { clockDeps, type ConnectorKindDescriptor } from '../connector-kind';
import { runScimCompatibility } from './compatibility-run';
import { ScimConnector } from './scim-connector';
import { scimConnectorSchema, type ScimConnectorSettings } from './scim-settings';

/** Connector A (spec: Connector A): a SCIM 2.0 client. */
export const SCIM_KIND: ConnectorKindDescriptor<ScimConnectorSettings> = {
  kind: 'scim',
  settingsSchema: scimConnectorSchema,
  catalogueJobType: 'Import SCIM groups',
  reconciliationJobType: 'Reconcile SCIM accounts',
  mappedAttributes: (settings) => Object.values(settings.mapping),
  create(settings, deps) {
    return new ScimConnector(settings, {
      secrets: deps.secrets,
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...clockDeps(deps.clock),
      ...(deps.telemetry === undefined ? {} : { telemetry: deps.telemetry(settings.name).calls }),
      ...(deps.userGroupsVerdicts === undefined
        ? {}
        : { userGroupsVerdicts: deps.userGroupsVerdicts }),
    });
  },
  compatibilityRun(settings, secrets, options) {
    return runScimCompatibility(settings, secrets, options);
  },
};
