import type {
  AccountChanges,
  AccountProfile,
  SimpleValue,
  TargetAccount,
} from '../../domain/account';
import { ProvisioningError } from '../../domain/errors';
import type { ManagedAttributes } from '../../config/connector-settings';
import type { PatchOperation } from './patch-op';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

/**
 * Spec: Account attributes sent to a SCIM server on create: the table's attributes are the
 * connector's own (userName is the account ID); the Mapping sends further ones only.
 */
export const SCIM_MANAGED_ATTRIBUTES: ManagedAttributes = {
  names: [
    'id',
    'schemas',
    'meta',
    'userName',
    'displayName',
    'name',
    'active',
    'emails',
    'password',
  ],
  schemaPrefix: USER_SCHEMA,
  reason: 'spec: userName is the account ID; the create table is sent by the connector',
};

/** Mapping: SCIM attribute name -> key of the profile's further attributes. */
export type AttributeMapping = Record<string, string>;

/**
 * The user a create sends (spec: Account attributes sent to a SCIM server on create):
 * userName, displayName, name, active, a primary e-mail, the password only when present,
 * and the Mapping's further simple attributes. Extension attributes
 * (`urn:...:User:employeeNumber`) go into their schema's object.
 *
 * @example
 * toScimUser({ accountId: 'jdoe', displayName: 'J Doe' }, {});
 */
export function toScimUser(
  profile: AccountProfile,
  mapping: AttributeMapping,
  password?: string,
): Record<string, unknown> {
  const user: Record<string, unknown> = {
    schemas: [USER_SCHEMA],
    userName: profile.accountId,
    active: true,
  };
  if (profile.displayName !== undefined) user.displayName = profile.displayName;
  const name = toScimName(profile);
  if (name !== undefined) user.name = name;
  if (profile.email !== undefined) user.emails = [primaryEmail(profile.email)];
  if (password !== undefined && password !== '') user.password = password;
  for (const [attribute, value] of mappedValues(profile, mapping)) {
    setAttribute(user, attribute, value);
  }
  return user;
}

/**
 * How an e-mail change is written. `pathFilter` (RFC 7644 §3.5.2.3): `replace` on
 * `emails[primary eq true].value`, the one address the service manages (spec: the primary
 * address); the target's other addresses stay. `wholeList`: `replace` on `emails` with the
 * one address, for servers that take no filter in a PATCH path: other addresses are removed.
 */
export type EmailUpdateStyle = 'pathFilter' | 'wholeList';

/** RFC 7644 §3.5.2.3: the value path of the managed (primary) e-mail address. */
export const PRIMARY_EMAIL_PATH = 'emails[primary eq true].value';

/**
 * Spec: Change account: one `replace` per changed attribute, in one PatchOp; the e-mail by
 * `emailStyle`.
 */
export function toReplaceOperations(
  changes: AccountChanges,
  mapping: AttributeMapping,
  emailStyle: EmailUpdateStyle = 'pathFilter',
): PatchOperation[] {
  const ops: PatchOperation[] = [];
  if (changes.displayName !== undefined) {
    ops.push({ op: 'replace', path: 'displayName', value: changes.displayName });
  }
  if (changes.givenName !== undefined) {
    ops.push({ op: 'replace', path: 'name.givenName', value: changes.givenName });
  }
  if (changes.familyName !== undefined) {
    ops.push({ op: 'replace', path: 'name.familyName', value: changes.familyName });
  }
  if (changes.email !== undefined) {
    ops.push(
      emailStyle === 'pathFilter'
        ? { op: 'replace', path: PRIMARY_EMAIL_PATH, value: changes.email }
        : { op: 'replace', path: 'emails', value: [primaryEmail(changes.email)] },
    );
  }
  for (const [attribute, value] of mappedValues(changes, mapping)) {
    ops.push({ op: 'replace', path: attribute, value });
  }
  return ops;
}

/**
 * The operations again for a target with no primary address, where the value path matches
 * nothing (RFC 7644 §3.5.2.3: 400 `noTarget`): the address is added as the primary one,
 * beside the target's other addresses (§3.5.2.1). Undefined when no e-mail is replaced by path.
 */
export function withPrimaryEmailAdded(
  operations: readonly PatchOperation[],
): PatchOperation[] | undefined {
  const index = operations.findIndex((op) => op.path === PRIMARY_EMAIL_PATH);
  const address = operations[index]?.value;
  if (typeof address !== 'string') return undefined;
  return operations.map((op, i) =>
    i === index ? { op: 'add', path: 'emails', value: [primaryEmail(address)] } : op,
  );
}

/**
 * Reads a SCIM user leniently: attribute names in any case (RFC 7643 §2.1: `Active` is
 * `active`), booleans as strings. A user without `active` (a server may leave out what it
 * does not return) is neither enabled nor locked: `enabled` is then absent, and a verdict
 * that needs it says it could not tell (DESIGN invariant 11). With a Mapping, also the
 * profile as the server shows it (an update's read-back).
 */
export function fromScimUser(resource: unknown, mapping?: AttributeMapping): TargetAccount {
  if (typeof resource !== 'object' || resource === null) {
    throw new ProvisioningError('TARGET_RESPONSE_INVALID', 'the server answered without a user');
  }
  const user = resource as Record<string, unknown>;
  const id = attributeOf(user, 'id');
  const userName = attributeOf(user, 'userName');
  if (typeof id !== 'string' || typeof userName !== 'string') {
    throw new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      'the server answered with a user that has no id or userName',
    );
  }
  const displayName = attributeOf(user, 'displayName');
  const enabled = readActive(user);
  return {
    id,
    accountId: userName,
    ...(typeof displayName === 'string' ? { displayName } : {}),
    ...(enabled === undefined ? {} : { enabled }),
    ...(mapping === undefined ? {} : { profile: readProfile(user, mapping) }),
  };
}

/**
 * A user's `active` as the server shows it, under any spelling of the name (RFC 7643 §2.1);
 * undefined when it shows none (never taken for enabled: that would confirm an unlock, and
 * refute a lock, by default).
 *
 * @example
 * readActive({ Active: 'False' }); // false
 * readActive({ userName: 'ada' }); // undefined
 */
export function readActive(user: Record<string, unknown>): boolean | undefined {
  return readBoolean(attributeOf(user, 'active'));
}

/** An attribute by its name in any case (RFC 7643 §2.1), the exact spelling first. */
function attributeOf(resource: Record<string, unknown>, name: string): unknown {
  if (name in resource) return resource[name];
  const lower = name.toLowerCase();
  const key = Object.keys(resource).find((candidate) => candidate.toLowerCase() === lower);
  return key === undefined ? undefined : resource[key];
}

function readProfile(user: Record<string, unknown>, mapping: AttributeMapping): AccountChanges {
  const profile: AccountChanges = {};
  const name = isObject(user.name) ? user.name : {};
  if (typeof user.displayName === 'string') profile.displayName = user.displayName;
  if (typeof name.givenName === 'string') profile.givenName = name.givenName;
  if (typeof name.familyName === 'string') profile.familyName = name.familyName;
  const emails = Array.isArray(user.emails) ? user.emails.filter(isObject) : [];
  const email = emails.find((entry) => readBoolean(entry.primary) === true) ?? emails[0];
  if (typeof email?.value === 'string') profile.email = email.value;
  const attributes: Record<string, SimpleValue> = {};
  for (const [attribute, key] of Object.entries(mapping)) {
    const value = readAttribute(user, attribute);
    if (value !== undefined) attributes[key] = value;
  }
  if (Object.keys(attributes).length > 0) profile.attributes = attributes;
  return profile;
}

/** `title`, or `urn:...:User:employeeNumber` from its extension's object (RFC 7643 §3.3). */
function readAttribute(user: Record<string, unknown>, attribute: string): SimpleValue | undefined {
  const colon = attribute.lastIndexOf(':');
  const holder =
    attribute.startsWith('urn:') && colon >= 0 ? user[attribute.slice(0, colon)] : user;
  const key = attribute.startsWith('urn:') && colon >= 0 ? attribute.slice(colon + 1) : attribute;
  const value = isObject(holder) ? holder[key] : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return undefined;
}

function toScimName(profile: AccountProfile): Record<string, string> | undefined {
  const name: Record<string, string> = {};
  if (profile.givenName !== undefined) name.givenName = profile.givenName;
  if (profile.familyName !== undefined) name.familyName = profile.familyName;
  if (profile.givenName !== undefined || profile.familyName !== undefined) {
    name.formatted = [profile.givenName, profile.familyName].filter(Boolean).join(' ');
  }
  return Object.keys(name).length === 0 ? undefined : name;
}

function primaryEmail(address: string): Record<string, unknown> {
  return { value: address, type: 'work', primary: true };
}

function mappedValues(
  source: { attributes?: Record<string, SimpleValue> },
  mapping: AttributeMapping,
): Array<[string, SimpleValue]> {
  const values: Array<[string, SimpleValue]> = [];
  for (const [attribute, key] of Object.entries(mapping)) {
    const value = source.attributes?.[key];
    if (value !== undefined) values.push([attribute, value]);
  }
  return values;
}

/** `urn:...:2.0:User:employeeNumber` lands in the extension's object (RFC 7643 §3.3). */
function setAttribute(user: Record<string, unknown>, attribute: string, value: SimpleValue): void {
  const colon = attribute.lastIndexOf(':');
  if (!attribute.startsWith('urn:') || colon < 0) {
    user[attribute] = value;
    return;
  }
  const schema = attribute.slice(0, colon);
  const name = attribute.slice(colon + 1);
  const extension = (user[schema] as Record<string, unknown> | undefined) ?? {};
  extension[name] = value;
  user[schema] = extension;
  const schemas = user.schemas as string[];
  if (!schemas.includes(schema)) schemas.push(schema);
}
