import type { ArmResource, ArmTemplate, PredictedResource, Snapshot } from './compiled-template';

/**
 * Pure readers over the compiled template and its snapshot. Each is a function of the JSON, so
 * a test can also hand it a changed copy and see its check fail.
 */

/** The resources of a type (compared without case, as ARM does). */
export function resourcesOfType(snapshot: Snapshot, type: string): PredictedResource[] {
  return snapshot.predictedResources.filter((r) => r.type.toLowerCase() === type.toLowerCase());
}

/** The one resource of a type; more or fewer is an error naming the type. */
export function onlyResource(snapshot: Snapshot, type: string): PredictedResource {
  const found = resourcesOfType(snapshot, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]!;
}

/** The app settings of the function app, as the deployment would write them. */
export function appSettings(snapshot: Snapshot): Record<string, string> {
  const site = onlyResource(snapshot, 'Microsoft.Web/sites');
  const config = resourcesOfType(snapshot, 'Microsoft.Web/sites/config').filter(
    (r) => r.name === `${site.name}/appsettings`,
  );
  if (config.length !== 1) throw new Error(`expected one appsettings of ${site.name}`);
  return config[0]!.properties as Record<string, string>;
}

/** The user-assigned identity the site runs as (it has exactly one). */
export function siteIdentity(snapshot: Snapshot): PredictedResource {
  const site = onlyResource(snapshot, 'Microsoft.Web/sites');
  const ids = Object.keys(site.identity?.userAssignedIdentities ?? {});
  const identity = snapshot.predictedResources.find((r) => ids.length === 1 && r.id === ids[0]);
  if (site.identity?.type !== 'UserAssigned' || identity === undefined) {
    throw new Error(`the site runs as ${site.identity?.type ?? 'no identity'} (${ids.join(', ')})`);
  }
  return identity;
}

/**
 * How the snapshot writes a value known only at deployment: a property of another resource,
 * e.g. `reference('<id>', '<apiVersion>').clientId`.
 */
export function referenceTo(resource: PredictedResource, property: string): string {
  return `reference('${resource.id}', '${resource.apiVersion}').${property}`;
}

/** True for a value the deployment computes (an ARM expression), false for a literal. */
export function isRuntimeValue(value: unknown): boolean {
  if (typeof value !== 'string' || !value.startsWith('[') || !value.endsWith(']')) return false;
  try {
    JSON.parse(value); // a literal JSON array, such as PROVISIONING_CONNECTORS
    return false;
  } catch {
    return true;
  }
}

export interface RoleGrant {
  /** The role definition GUID. */
  role: string;
  /** A principal object ID, or the runtime expression that yields it. */
  principal: string;
  principalType: string;
  /** The resource ID the assignment is scoped to. */
  scope: string;
}

/** Every role assignment of the snapshot as (role, principal, scope). */
export function roleGrants(snapshot: Snapshot): RoleGrant[] {
  return resourcesOfType(snapshot, 'Microsoft.Authorization/roleAssignments').map((r) => {
    const properties = r.properties as {
      roleDefinitionId: string;
      principalId: string;
      principalType: string;
    };
    const role = /\/providers\/Microsoft\.Authorization\/roleDefinitions\/([0-9a-f-]{36})$/i.exec(
      properties.roleDefinitionId,
    )?.[1];
    if (role === undefined)
      throw new Error(`unexpected roleDefinitionId ${properties.roleDefinitionId}`);
    return {
      role: role.toLowerCase(),
      principal: properties.principalId,
      principalType: properties.principalType,
      scope: assignmentScope(r.id),
    };
  });
}

/** The scope of a role assignment from its ID, literal or computed at deployment. */
export function assignmentScope(id: string): string {
  const computed =
    /^\[extensionResourceId\('([^']+)', 'Microsoft\.Authorization\/roleAssignments',/.exec(id);
  if (computed?.[1] !== undefined) return computed[1];
  const literal = /^(.*)\/providers\/Microsoft\.Authorization\/roleAssignments\/[^/]+$/.exec(id);
  if (literal?.[1] !== undefined && !id.startsWith('[')) return literal[1];
  throw new Error(`cannot tell the scope of role assignment ${id}`);
}

/** The nested deployment a Bicep module compiled to, by module name. */
export function moduleDeployment(template: ArmTemplate, name: string): ArmResource {
  const found = template.resources.find(
    (r) => r.type === 'Microsoft.Resources/deployments' && r.name === name,
  );
  if (found?.properties?.template === undefined)
    throw new Error(`no module "${name}" in the template`);
  return found;
}

/** The resources of a type declared in a module's template (not evaluated). */
export function moduleResources(
  template: ArmTemplate,
  module: string,
  type: string,
): ArmResource[] {
  return moduleDeployment(template, module).properties!.template!.resources.filter(
    (r) => r.type === type,
  );
}
