import { scimError } from './scim-error.js';
import type { FilterNode } from './scim-filter.js';
import { GROUP_SCHEMA } from './scim-store.js';
import type { ScimQuirks } from './types.js';

/** The comparison operators a filter uses, in order. */
export function operatorsOf(node: FilterNode): string[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      return [...operatorsOf(node.left), ...operatorsOf(node.right)];
    case 'not':
      return operatorsOf(node.operand);
    case 'valuePath':
      return operatorsOf(node.filter);
    case 'compare':
      return [node.op];
    case 'present':
      return [];
  }
}

function isDisplayNameEq(node: FilterNode): boolean {
  if (node.kind !== 'compare' || node.op !== 'eq' || typeof node.value !== 'string') return false;
  const path = node.path[0] === GROUP_SCHEMA.toLowerCase() ? node.path.slice(1) : node.path;
  return path.length === 1 && path[0] === 'displayname';
}

/**
 * Refuses, with 400 `invalidFilter`, the filters an application's built-in SCIM service
 * cannot evaluate (scim-interop.md, "Applications' built-in SCIM services"): operators
 * outside `filterOperators`, and on Groups anything but `displayName eq` when
 * `groupFilterDisplayNameEqOnly` is on.
 *
 * @example
 * checkFilterSupport(parseScimFilter('displayName co "Sal"'), GROUP_SCHEMA, { filterOperators: ['eq'] }); // throws
 */
export function checkFilterSupport(
  filter: FilterNode,
  coreSchema: string,
  quirks: ScimQuirks,
): void {
  const isGroups = coreSchema.toLowerCase() === GROUP_SCHEMA.toLowerCase();
  if (isGroups && quirks.groupFilterDisplayNameEqOnly === true && !isDisplayNameEq(filter)) {
    throw scimError(400, 'invalidFilter', "Groups can only be filtered with 'displayName eq'");
  }
  const allowed = quirks.filterOperators;
  if (allowed === undefined) return;
  const refused = operatorsOf(filter).find((op) => !allowed.includes(op as never));
  if (refused !== undefined) {
    throw scimError(400, 'invalidFilter', `Filter operator '${refused}' is not supported`);
  }
}
