import { roleAnswersTo, type CatalogueRole } from '../../domain/catalogue-import';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import { describeSelector, type GroupSelector } from '../../domain/provisioning-request';
import type { ActivityResult } from '../activity-result';
import type { WorkflowServices } from '../workflow-services';

/** The groups one step of a request names, to be looked up in the role catalogue. */
export interface RoleLookUp {
  /** The step's index in the request. */
  step: number;
  selectors: GroupSelector[];
}

/** A step's groups as the catalogue knows them: the lookUpRoles activity's answer for it. */
export interface FoundRoles {
  step: number;
  found: ActivityResult<(GroupRef | null)[]>;
}

/**
 * The named groups as the role catalogue knows them, with whether their members may be
 * written: a group named by id is taken as it is; a name the catalogue does not know comes
 * back null (the target is asked next); a name several roles answer to is refused.
 */
export function rolesNamed(
  roles: readonly CatalogueRole[],
  connector: string,
  selectors: readonly GroupSelector[],
): (GroupRef | null)[] {
  return selectors.map((selector) => {
    if ('id' in selector) {
      const role = roles.find((r) => r.groupId === selector.id);
      return role === undefined ? { id: selector.id, displayName: selector.id } : groupOf(role);
    }
    const matches = roles.filter((role) => roleAnswersTo(role, selector.name));
    if (matches.length > 1) {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `group ${describeSelector(selector)} names ${matches.length} roles of connector ` +
          `"${connector}" (${matches.map((r) => r.groupId).join(', ')}): name the group by id`,
        { object: selector.name },
      );
    }
    const [role] = matches;
    return role === undefined ? null : groupOf(role);
  });
}

/**
 * Each step's groups looked up with one catalogue read, each answered as its own lookUpRoles
 * activity would answer it (a refused name fails that step only, when it runs). Undefined
 * when the catalogue could not be read, or the lookup failed otherwise: each step then looks
 * its groups up itself, and meets the failure (or not) where it always did. Never throws:
 * the caller has just taken the account's lease.
 */
export async function lookUpRolesOfSteps(
  services: WorkflowServices,
  connector: string,
  lookUps: readonly RoleLookUp[],
): Promise<FoundRoles[] | undefined> {
  if (lookUps.length === 0) return [];
  let roles: CatalogueRole[];
  try {
    roles = await services.catalogue.list(connector);
  } catch (error) {
    services.logger.warn(
      `connector ${connector}: the roles of a request were not looked up ahead (${isProvisioningError(error) ? error.code : 'unexpected failure'}); its steps look them up`,
      { connector },
    );
    return undefined;
  }
  const found: FoundRoles[] = [];
  for (const { step, selectors } of lookUps) {
    try {
      found.push({ step, found: { ok: true, value: rolesNamed(roles, connector, selectors) } });
    } catch (error) {
      if (!isProvisioningError(error) || error.retryable) return undefined;
      found.push({ step, found: { ok: false, error: error.toJSON() } });
    }
  }
  return found;
}

/** A catalogue role as a group a step writes. */
export function groupOf(role: CatalogueRole): GroupRef {
  return {
    id: role.groupId,
    displayName: role.targetName,
    writable: role.writable,
    ...(role.notWritableReason === undefined ? {} : { notWritableReason: role.notWritableReason }),
    ...(role.status === 'gone' ? { goneSince: role.goneSince ?? role.lastImportedAt } : {}),
  };
}
