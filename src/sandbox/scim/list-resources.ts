import { project } from './attribute-projection.js';
import type { Projection } from './attribute-projection.js';
import { checkFilterSupport, operatorsOf } from './filter-support.js';
import { matchesFilter, type MatchOptions } from './filter-match.js';
import { scimError } from './scim-error.js';
import { parseScimFilter, type FilterNode } from './scim-filter.js';
import type { ScimResource } from './scim-store.js';
import type { ScimQuirks } from './types.js';

export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** Page size when the client sends no `count` (RFC 7644 §3.4.2.4 leaves it to the server). */
export const DEFAULT_PAGE_SIZE = 100;

export interface ListResponseBody {
  schemas: [typeof LIST_RESPONSE_SCHEMA];
  totalResults: number;
  itemsPerPage: number;
  startIndex: number;
  Resources: ScimResource[];
}

/** Whether a filter compares anything under `members`. */
function namesMembers(node: FilterNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return namesMembers(node.left) || namesMembers(node.right);
    case 'not':
      return namesMembers(node.operand);
    default:
      return node.path.some((segment) => segment === 'members');
  }
}

function readInteger(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? Math.trunc(value) : undefined;
}

/**
 * Answers `GET /Users` or `GET /Groups` (RFC 7644 §3.4.2): filter, then page with a 1-based
 * `startIndex` in creation order, `itemsPerPage` = the number returned. Only the page is
 * projected, so a request costs O(n) cheap comparisons at most, never O(n) renderings.
 *
 * @example
 * listResources(store.listGroups(), new URLSearchParams('startIndex=101&count=100'), undefined, quirks, coreSchema);
 */
export function listResources(
  all: ScimResource[],
  query: URLSearchParams,
  projection: Projection | undefined,
  quirks: ScimQuirks,
  coreSchema: string,
  memberValues?: MatchOptions['memberValues'],
): ListResponseBody {
  const filterText = query.get('filter');
  let matches = all;
  // Quirk `ignoreFilters`: the filter is not even read.
  if (filterText !== null && quirks.ignoreFilters !== true) {
    const filter = parseScimFilter(filterText);
    checkFilterSupport(filter, coreSchema, quirks);
    if (quirks.membersFilter === 'refused' && namesMembers(filter)) {
      throw scimError(400, 'invalidFilter', 'Filtering on members is not supported');
    }
    const options: MatchOptions = {
      caseSensitive: quirks.caseSensitiveFilters === true,
      coreSchema: coreSchema.toLowerCase(),
      ...(quirks.membersFilter === 'ignored' || quirks.membersFilter === 'blind'
        ? { membersClause: quirks.membersFilter === 'ignored' }
        : {}),
      ...(memberValues === undefined ? {} : { memberValues }),
    };
    // Quirk `coMatchesNothing`: an operator the server parses and never evaluates.
    matches =
      quirks.coMatchesNothing === true && operatorsOf(filter).includes('co')
        ? []
        : all.filter((resource) => matchesFilter(filter, resource, options));
    if (matches.length === 0 && quirks.notFoundOnEmptyFilter === true) {
      throw scimError(404, null, 'No resources match the filter');
    }
  }
  // RFC 7644 §3.4.2.4: startIndex below 1 is 1, a negative count is 0.
  let startIndex = Math.max(readInteger(query, 'startIndex') ?? 1, 1);
  let count = Math.max(readInteger(query, 'count') ?? quirks.defaultCount ?? DEFAULT_PAGE_SIZE, 0);
  if (quirks.maxCount !== undefined) count = Math.min(count, quirks.maxCount);
  if (quirks.ignoreStartIndex === true) {
    startIndex = 1;
    count = quirks.maxCount ?? matches.length;
  }
  // Quirk `listShiftsBy`: as if the first resources were deleted since the first page.
  const listed =
    quirks.listShiftsBy !== undefined && startIndex > 1
      ? matches.slice(quirks.listShiftsBy)
      : matches;
  // Quirk `refusesStartIndexPastEnd`: asking past the end is an error, not an empty page.
  if (quirks.refusesStartIndexPastEnd === true && startIndex > Math.max(listed.length, 1)) {
    throw scimError(400, 'invalidValue', `startIndex ${startIndex} is past the end of the list`);
  }
  let page = listed.slice(startIndex - 1, startIndex - 1 + count);
  // Quirk `listEndsAfter`: nothing past that many, whatever totalResults says.
  if (quirks.listEndsAfter !== undefined) {
    page = page.slice(0, Math.max(0, quirks.listEndsAfter - (startIndex - 1)));
  }
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: quirks.totalResultsIsPageSize === true ? page.length : listed.length,
    itemsPerPage: page.length,
    startIndex,
    Resources: page.map((resource) => project(resource, projection)),
  };
}
