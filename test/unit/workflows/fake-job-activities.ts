import type { ConnectorKind } from '../../../src/connectors/connector';
import type { CompatibilityReport } from '../../../src/connectors/scim/compatibility-run';
import { ProvisioningError } from '../../../src/domain/errors';
import type { GroupRef } from '../../../src/domain/group';
import type { ImportCatalogueInput } from '../../../src/workflows/activities/activity-inputs';
import type { ImportSummary } from '../../../src/workflows/activities/service-activities';

/**
 * The fake `importCatalogue`: the target's groups into the catalogue (a list it changes in
 * place), renames only with "Overwrite existing roles", roles gone from the target counted.
 */
export function importIntoCatalogue(
  groups: Iterable<GroupRef>,
  catalogue: GroupRef[],
  input: ImportCatalogueInput,
): ImportSummary {
  const onTarget = [...groups];
  const summary: ImportSummary = {
    groups: onTarget.length,
    pages: onTarget.length > 0 ? 1 : 0,
    added: 0,
    renamed: 0,
    renameSkipped: 0,
    unchanged: 0,
    returned: 0,
    markedGone: catalogue.filter((role) => !onTarget.some((group) => group.id === role.id)).length,
  };
  for (const group of onTarget) {
    const role = catalogue.find((known) => known.id === group.id);
    if (role === undefined) {
      catalogue.push({ id: group.id, displayName: group.displayName });
      summary.added += 1;
    } else if (role.displayName === group.displayName) {
      summary.unchanged += 1;
    } else if (input.overwriteExisting) {
      role.displayName = group.displayName;
      summary.renamed += 1;
    } else {
      summary.renameSkipped += 1;
    }
  }
  return summary;
}

/** The fake `runCompatibility`: a fitting report for SCIM, refused for other kinds as the real one is. */
export function compatibilityReport(connector: string, kind: ConnectorKind): CompatibilityReport {
  if (kind !== 'scim') {
    throw new ProvisioningError(
      'OPERATION_NOT_SUPPORTED',
      `connector "${connector}" is not a SCIM connector`,
      { object: connector },
    );
  }
  return {
    connector,
    baseUrl: 'http://127.0.0.1/scim/v2/',
    testAccount: 'compat-test-1',
    points: [],
    steps: [{ name: 'create test account', outcome: 'succeeded', detail: '' }],
    cleanup: 'test account deleted',
    fits: true,
  };
}
