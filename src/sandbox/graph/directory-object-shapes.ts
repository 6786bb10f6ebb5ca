import type { DirectoryObjectKind, DirectoryRecord } from './directory-store.js';
import { GraphRequestError } from './graph-error.js';

/** `@odata.type` per kind (graph-behaviour.md: memberOf returns all three kinds). */
export const ODATA_TYPES: Record<DirectoryObjectKind, string> = {
  user: '#microsoft.graph.user',
  group: '#microsoft.graph.group',
  directoryRole: '#microsoft.graph.directoryRole',
  administrativeUnit: '#microsoft.graph.administrativeUnit',
};

/**
 * The properties Graph v1.0 returns without `$select`. For users this is the small
 * default set: `accountEnabled` and `signInActivity` come back only when selected.
 */
const DEFAULT_PROPERTIES: Record<DirectoryObjectKind, readonly string[]> = {
  user: [
    'businessPhones',
    'displayName',
    'givenName',
    'jobTitle',
    'mail',
    'mobilePhone',
    'officeLocation',
    'preferredLanguage',
    'surname',
    'userPrincipalName',
    'id',
  ],
  group: [
    'id',
    'createdDateTime',
    'description',
    'displayName',
    'groupTypes',
    'isAssignableToRole',
    'mail',
    'mailEnabled',
    'mailNickname',
    'membershipRule',
    'membershipRuleProcessingState',
    'onPremisesSyncEnabled',
    'securityEnabled',
    'visibility',
  ],
  directoryRole: ['id', 'description', 'displayName', 'roleTemplateId'],
  administrativeUnit: ['id', 'description', 'displayName', 'visibility'],
};

/** Properties of a user that `POST`/`PATCH /users` may set and `$select` may name. */
export const USER_WRITABLE_PROPERTIES: readonly string[] = [
  'accountEnabled',
  'ageGroup',
  'businessPhones',
  'city',
  'companyName',
  'country',
  'department',
  'displayName',
  'employeeHireDate',
  'employeeId',
  'employeeType',
  'faxNumber',
  'givenName',
  'jobTitle',
  'mail',
  'mailNickname',
  'mobilePhone',
  'officeLocation',
  'onPremisesImmutableId',
  'otherMails',
  'passwordPolicies',
  'passwordProfile',
  'postalCode',
  'preferredLanguage',
  'state',
  'streetAddress',
  'surname',
  'usageLocation',
  'userPrincipalName',
  'userType',
];

const SELECTABLE: Record<DirectoryObjectKind, ReadonlySet<string>> = {
  user: new Set([
    ...DEFAULT_PROPERTIES.user,
    ...USER_WRITABLE_PROPERTIES,
    'createdDateTime',
    'signInActivity',
    'onPremisesSyncEnabled',
  ]),
  group: new Set(DEFAULT_PROPERTIES.group),
  directoryRole: new Set(DEFAULT_PROPERTIES.directoryRole),
  administrativeUnit: new Set(DEFAULT_PROPERTIES.administrativeUnit),
};

/** Collection-valued properties: Graph answers `[]`, not null, when they are empty. */
const COLLECTION_PROPERTIES = new Set(['businessPhones', 'otherMails', 'groupTypes']);

/** Graph's type names, for error messages. */
const TYPE_NAMES: Record<DirectoryObjectKind, string> = {
  user: 'microsoft.graph.user',
  group: 'microsoft.graph.group',
  directoryRole: 'microsoft.graph.directoryRole',
  administrativeUnit: 'microsoft.graph.administrativeUnit',
};

function isSelectable(kind: DirectoryObjectKind, property: string): boolean {
  return SELECTABLE[kind].has(property) || /^extension_[0-9a-f]+_\w+$/i.test(property);
}

/** 400 for a `$select` naming a property the type does not have. */
export function checkSelect(
  kind: DirectoryObjectKind,
  select: readonly string[] | undefined,
): void {
  for (const property of select ?? []) {
    if (!isSelectable(kind, property)) {
      throw new GraphRequestError(
        400,
        'Request_BadRequest',
        `Could not find a property named '${property}' on type '${TYPE_NAMES[kind]}'.`,
      );
    }
  }
}

export interface ShapeOptions {
  /** Adds `@odata.type`, as Graph does in collections of mixed directory objects. */
  withType: boolean;
  /** False when the app may not read this kind: only `@odata.type` and `id` come back. */
  readable: boolean;
}

/**
 * A record as Graph returns it: the default properties or exactly the `$select`ed ones
 * (unset ones as null), never `passwordProfile` contents.
 */
export function shapeDirectoryObject(
  kind: DirectoryObjectKind,
  record: DirectoryRecord,
  select: readonly string[] | undefined,
  options: ShapeOptions,
): Record<string, unknown> {
  const shaped: Record<string, unknown> = options.withType
    ? { '@odata.type': ODATA_TYPES[kind] }
    : {};
  if (!options.readable) {
    shaped['id'] = record.id;
    return shaped;
  }
  const properties = select ?? DEFAULT_PROPERTIES[kind];
  for (const property of properties) {
    if (!isSelectable(kind, property)) continue;
    if (property === 'passwordProfile') {
      shaped[property] = null;
    } else {
      shaped[property] = record[property] ?? (COLLECTION_PROPERTIES.has(property) ? [] : null);
    }
  }
  return shaped;
}
