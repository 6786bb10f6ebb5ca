import type { GroupRef } from '../../domain/group';
import { readString, type GraphObject } from './graph-objects';

/** Group properties that tell whether Graph lets us write the members (graph-behaviour.md). */
export const GROUP_SELECT =
  'id,displayName,groupTypes,mailEnabled,securityEnabled,onPremisesSyncEnabled,isAssignableToRole,membershipRule';

export interface WritabilityOptions {
  /** The app holds RoleManagement.ReadWrite.Directory: role-assignable groups are writable. */
  canWriteRoleAssignable: boolean;
}

/**
 * Why Graph will not let the service write this group's members, or undefined when it
 * will (graph-behaviour.md, "Groups whose members cannot be written through Graph").
 *
 * @example
 * notWritableReason({ groupTypes: ['DynamicMembership'] }, { canWriteRoleAssignable: false });
 * // 'dynamic membership: members follow a rule'
 */
export function notWritableReason(
  group: GraphObject,
  options: WritabilityOptions,
): string | undefined {
  const groupTypes = Array.isArray(group.groupTypes) ? group.groupTypes : [];
  if (groupTypes.includes('DynamicMembership')) {
    const rule = readString(group, 'membershipRule');
    return `dynamic membership: members follow a rule${rule === undefined ? '' : ` (${rule})`}`;
  }
  if (group.onPremisesSyncEnabled === true) {
    return 'synchronised from on-premises Active Directory: members are written there';
  }
  // Microsoft 365 groups are mail-enabled too, but their members are written through Graph.
  if (group.mailEnabled === true && !groupTypes.includes('Unified')) {
    return group.securityEnabled === true
      ? 'mail-enabled security group: members are managed in Exchange'
      : 'distribution list: members are managed in Exchange';
  }
  if (group.isAssignableToRole === true && !options.canWriteRoleAssignable) {
    return 'role-assignable group: member writes need RoleManagement.ReadWrite.Directory';
  }
  return undefined;
}

/** A Graph group as a catalogue entry, marked writable or not. */
export function toGroupRef(group: GraphObject, options: WritabilityOptions): GroupRef {
  const id = readString(group, 'id') ?? '';
  const reason = notWritableReason(group, options);
  return {
    id,
    displayName: readString(group, 'displayName') ?? id,
    writable: reason === undefined,
    ...(reason === undefined ? {} : { notWritableReason: reason }),
  };
}
