import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  onlyResource,
  referenceTo,
  roleGrants,
  siteIdentity,
  type RoleGrant,
} from './arm-snapshot';
import {
  describeCompiled,
  repoRoot,
  template,
  type PredictedResource,
  type Snapshot,
  type Variant,
} from './compiled-template';

/**
 * Azure built-in role definition IDs ("Azure built-in roles",
 * learn.microsoft.com/azure/role-based-access-control/built-in-roles). Broader roles the app must
 * not get are listed too, so that one swapped in is named in the failure.
 */
const ROLES: Record<string, string> = {
  'b7e6dc6d-f1e8-4753-8033-0f276bb0955b': 'Storage Blob Data Owner',
  'ba92f5b4-2d11-453d-a403-e96b0029c9fe': 'Storage Blob Data Contributor',
  '974c5e8b-45b9-4653-ba55-5f855dd0fb88': 'Storage Queue Data Contributor',
  '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3': 'Storage Table Data Contributor',
  '17d1049b-9a84-46fb-8f53-869881c3d3ab': 'Storage Account Contributor',
  '4633458b-17de-408a-b874-0445c86b69e6': 'Key Vault Secrets User',
  'b86a8fe4-44ce-4948-aee5-eccb2c155cd7': 'Key Vault Secrets Officer',
  '00482a5a-887f-4fb3-b363-3b7fe8e74483': 'Key Vault Administrator',
  '3913510d-42f4-4e42-8a64-420c390055eb': 'Monitoring Metrics Publisher',
  '0ad04412-c4d5-4796-b79c-f76d14c8d402': 'Durable Task Data Contributor',
  'b24988ac-6180-42a0-ab88-20f7382dd24c': 'Contributor',
  '8e3af657-a8ff-443c-a75c-2fe8c4bcb635': 'Owner',
};

/**
 * The narrowest Key Vault role for what the code does with secrets: Secrets User reads; the
 * code also sets and deletes the transient per-request password secrets (DESIGN invariant 5),
 * and Secrets Officer is the narrowest built-in role that can.
 */
function vaultRoleTheCodeNeeds(): string {
  const store = readFileSync(join(repoRoot, 'src/secrets/key-vault-secret-store.ts'), 'utf8');
  const writes = /\.setSecret\(|\.beginDeleteSecret\(/.test(store);
  return writes ? 'Key Vault Secrets Officer' : 'Key Vault Secrets User';
}

/** "<role> on <scope resource type>/<name>" for each grant, named by the tables above. */
function describeGrants(snapshot: Snapshot, grants: RoleGrant[]): string[] {
  return grants
    .map((grant) => {
      const scope = snapshot.predictedResources.find((r) => r.id === grant.scope);
      const where = scope === undefined ? grant.scope : `${scope.type} ${scope.name}`;
      return `${ROLES[grant.role] ?? `unknown role ${grant.role}`} on ${where}`;
    })
    .sort();
}

/** How the snapshot writes the principal of the function app's identity. */
function appPrincipal(snapshot: Snapshot): string {
  return `[${referenceTo(siteIdentity(snapshot), 'principalId')}]`;
}

/** The grants to the function app's identity, described. */
function appGrants(snapshot: Snapshot): string[] {
  const principal = appPrincipal(snapshot);
  return describeGrants(
    snapshot,
    roleGrants(snapshot).filter((grant) => grant.principal === principal),
  );
}

/** A copy of the snapshot with one more role assignment, as Bicep would write it. */
function withGrant(snapshot: Snapshot, role: string, scope: string, principal: string): Snapshot {
  const assignment: PredictedResource = {
    id: `${scope}/providers/Microsoft.Authorization/roleAssignments/${role}`,
    type: 'Microsoft.Authorization/roleAssignments',
    name: role,
    apiVersion: '2022-04-01',
    properties: {
      roleDefinitionId: `/providers/Microsoft.Authorization/roleDefinitions/${role}`,
      principalId: principal,
      principalType: 'ServicePrincipal',
    },
  };
  return { ...snapshot, predictedResources: [...snapshot.predictedResources, assignment] };
}

function expectedAppGrants(snapshot: Snapshot, variant: Variant): string[] {
  const on = (type: string): string => `${type} ${onlyResource(snapshot, type).name}`;
  const storage = on('Microsoft.Storage/storageAccounts');
  return [
    // Functions host storage with an identity: host locks, timer leases, the package (and with the
    // Azure Storage backend, Durable leases).
    `Storage Blob Data Owner on ${storage}`,
    // The bulk queue trigger and its poison queue (and Durable's queues on Azure Storage).
    `Storage Queue Data Contributor on ${storage}`,
    // The journal (records and leases too), catalogue and intent tables (and Durable's tables on Azure Storage).
    `Storage Table Data Contributor on ${storage}`,
    `${vaultRoleTheCodeNeeds()} on ${on('Microsoft.KeyVault/vaults')}`,
    // Application Insights with local authentication off takes telemetry from this role only.
    `Monitoring Metrics Publisher on ${on('Microsoft.Insights/components')}`,
    // The Durable Functions host starts, runs and queries orchestrations on the scheduler.
    ...(variant === 'default'
      ? [`Durable Task Data Contributor on ${on('Microsoft.DurableTask/schedulers')}`]
      : []),
  ].sort();
}

describeCompiled('role assignments of the compiled template', () => {
  it.each(['default', 'storage-backend'] as const)(
    'give the app identity exactly the data-plane roles the code needs, each on its resource (%s)',
    (variant) => {
      const { snapshot } = template(variant);
      expect(appGrants(snapshot)).toEqual(expectedAppGrants(snapshot, variant));
    },
  );

  it('give the scheduler role on the scheduler only, and with the Azure Storage backend no scheduler', () => {
    const scheduler = onlyResource(template().snapshot, 'Microsoft.DurableTask/schedulers');
    const onScheduler = roleGrants(template().snapshot).filter((g) => g.scope === scheduler.id);
    expect(onScheduler.map((g) => [ROLES[g.role], g.principal])).toEqual([
      ['Durable Task Data Contributor', appPrincipal(template().snapshot)],
    ]);
    const storageBackend = template('storage-backend').snapshot;
    expect(
      storageBackend.predictedResources.filter((r) => /^Microsoft\.DurableTask\//i.test(r.type)),
    ).toEqual([]);
  });

  it('would name a broader role, or a role at resource-group scope, slipped in', () => {
    const { snapshot } = template();
    const rg = onlyResource(snapshot, 'Microsoft.Resources/resourceGroups');
    const storage = onlyResource(snapshot, 'Microsoft.Storage/storageAccounts');
    const contributor = 'b24988ac-6180-42a0-ab88-20f7382dd24c';
    const blobContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe';
    const widened = withGrant(
      withGrant(snapshot, contributor, rg.id, appPrincipal(snapshot)),
      blobContributor,
      storage.id,
      appPrincipal(snapshot),
    );
    const expected = expectedAppGrants(snapshot, 'default');
    expect(appGrants(widened).filter((grant) => !expected.includes(grant))).toEqual([
      `Contributor on Microsoft.Resources/resourceGroups ${rg.name}`,
      `Storage Blob Data Contributor on Microsoft.Storage/storageAccounts ${storage.name}`,
    ]);
  });

  it('give the operator only the right to enter secrets in this vault', () => {
    const { snapshot, parameters } = template();
    const operator = parameters.parameters.operatorPrincipalId?.value as string;
    expect(operator).toMatch(/^[0-9a-f-]{36}$/);
    const grants = roleGrants(snapshot).filter((grant) => grant.principal === operator);
    expect(describeGrants(snapshot, grants)).toEqual([
      `Key Vault Secrets Officer on Microsoft.KeyVault/vaults ${onlyResource(snapshot, 'Microsoft.KeyVault/vaults').name}`,
    ]);
    expect(grants[0]!.principalType).toBe(parameters.parameters.operatorPrincipalType?.value);
  });

  it.each(['default', 'storage-backend'] as const)(
    'grant nothing to anyone else (%s)',
    (variant) => {
      const { snapshot, parameters } = template(variant);
      const app = appPrincipal(snapshot);
      const operator = parameters.parameters.operatorPrincipalId?.value;
      const others = roleGrants(snapshot).filter(
        (g) => g.principal !== app && g.principal !== operator,
      );
      expect(others).toEqual([]);
    },
  );
});
