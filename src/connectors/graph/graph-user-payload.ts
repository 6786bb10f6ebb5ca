import type {
  AccountChanges,
  AccountProfile,
  SimpleValue,
  TargetAccount,
} from '../../domain/account';
import type { ManagedAttributes } from '../../config/connector-settings';
import { ProvisioningError } from '../../domain/errors';
import { readString, type GraphObject } from './graph-objects';

/** The user properties every account read asks for (`$select`, graph-behaviour.md). */
export const USER_SELECT = 'id,userPrincipalName,displayName,accountEnabled';

/**
 * The properties the connector sets itself; a Mapping that names one is refused at start-up,
 * because the connector's value would silently win over it on create (`toGraphUser` spreads
 * the Mapping first). Spec: Account attributes sent to the directory on create: the table
 * (userPrincipalName, mailNickname, accountEnabled, passwordProfile) is the connector's.
 * displayName, givenName and surname are not in that table, but the request carries them as
 * its own fields (display name, given and family name) and the connector writes them on
 * create and update, as connector A does for displayName and name: a Mapping onto them would
 * be a second source for one property. Every other simple property (`department`, `jobTitle`,
 * `mail`, `employeeId`, ...) is a "further attribute" the Mapping may set.
 */
export const GRAPH_MANAGED_PROPERTIES: ManagedAttributes = {
  names: [
    'id',
    'userPrincipalName',
    'mailNickname',
    'accountEnabled',
    'passwordProfile',
    'displayName',
    'givenName',
    'surname',
  ],
  reason:
    "spec: userPrincipalName is the account ID and the create table is sent by the connector; displayName, givenName and surname come from the request's displayName, givenName and familyName",
};

/** Exchange alias rules: ASCII atext and dots, at most 64 characters. */
const MAIL_NICKNAME_MAX = 64;

/**
 * Spec: Account attributes sent to the directory: userPrincipalName is the account ID;
 * a bare name part (no "@") gets the configured UPN domain appended.
 *
 * @example
 * toUserPrincipalName('jdoe', 'contoso.example'); // 'jdoe@contoso.example'
 */
export function toUserPrincipalName(accountId: string, upnDomain: string | undefined): string {
  const id = accountId.trim();
  if (id === '') throw new ProvisioningError('REQUEST_INVALID', 'the account ID is empty');
  if (id.includes('@')) return id;
  if (upnDomain === undefined) {
    throw new ProvisioningError(
      'REQUEST_INVALID',
      `account ID "${id}" has no domain and the connector has no UPN domain configured`,
      { object: id },
    );
  }
  return `${id}@${upnDomain}`;
}

/**
 * Spec: mailNickname is the part of the account ID before the "@", reduced to the
 * characters Graph accepts (ASCII letters, digits and ! # $ % & ' * + - / = ? ^ _ ` { | } ~,
 * dots not leading, trailing or doubled; at most 64). Accents are folded ("é" -> "e").
 *
 * @example
 * toMailNickname('José.Nuñez (ext)@contoso.example'); // 'Jose.Nunezext'
 */
export function toMailNickname(userPrincipalName: string): string {
  const local = userPrincipalName.split('@')[0] ?? '';
  const folded = local.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  const reduced = folded
    .replace(/[^A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.]/g, '')
    .replace(/\.{2,}/g, '.')
    .replace(/^\.+|\.+$/g, '')
    .slice(0, MAIL_NICKNAME_MAX)
    .replace(/\.+$/, '');
  if (reduced === '') {
    throw new ProvisioningError(
      'REQUEST_INVALID',
      `account ID "${userPrincipalName}" leaves no character Graph accepts for mailNickname`,
      { object: userPrincipalName },
    );
  }
  return reduced;
}

/**
 * The `POST /users` body (spec: Account attributes sent to the directory on create;
 * graph-behaviour.md: accountEnabled, displayName, mailNickname, passwordProfile and
 * userPrincipalName are required). Further simple attributes follow the Mapping.
 */
export function toGraphUser(
  profile: AccountProfile,
  userPrincipalName: string,
  password: string,
  mapping: Record<string, string>,
): GraphObject {
  return {
    ...mappedAttributes(profile.attributes, mapping),
    ...nameAttributes(profile),
    displayName: displayNameOf(profile, userPrincipalName),
    userPrincipalName,
    mailNickname: toMailNickname(userPrincipalName),
    accountEnabled: true,
    passwordProfile: toPasswordProfile(password),
  };
}

/** The `PATCH /users/{id}` body of a change; empty when nothing Graph holds changes. */
export function toGraphUserChanges(
  changes: AccountChanges,
  mapping: Record<string, string>,
): GraphObject {
  return {
    ...mappedAttributes(changes.attributes, mapping),
    ...nameAttributes(changes),
    ...(changes.displayName === undefined ? {} : { displayName: changes.displayName }),
  };
}

/**
 * graph-behaviour.md: passwordProfile. An administrator-set password is a first password:
 * the user chooses their own at the next sign-in.
 */
export function toPasswordProfile(password: string): GraphObject {
  return { password, forceChangePasswordNextSignIn: true };
}

/**
 * The properties a read of one account asks for: those of every account read, plus the
 * profile properties an update writes (read back to confirm it) and the Mapping's.
 */
export function profileSelect(mapping: Record<string, string>): string {
  return [
    ...new Set([...USER_SELECT.split(','), 'givenName', 'surname', ...Object.keys(mapping)]),
  ].join(',');
}

/**
 * A user as the service sees it; undefined when the object is not a usable user. With a
 * Mapping, the profile as Graph shows it (what an update wrote, for its read-back).
 */
export function toTargetAccount(
  user: GraphObject,
  mapping?: Record<string, string>,
): TargetAccount | undefined {
  const id = readString(user, 'id');
  const upn = readString(user, 'userPrincipalName');
  if (id === undefined || upn === undefined) return undefined;
  const displayName = readString(user, 'displayName');
  return {
    id,
    accountId: upn,
    ...(displayName === undefined ? {} : { displayName }),
    // Graph returns accountEnabled only when selected: without it the state is unknown.
    ...(typeof user.accountEnabled === 'boolean' ? { enabled: user.accountEnabled } : {}),
    ...(mapping === undefined ? {} : { profile: readProfile(user, mapping) }),
  };
}

function readProfile(user: GraphObject, mapping: Record<string, string>): AccountChanges {
  const attributes: Record<string, SimpleValue> = {};
  for (const [property, key] of Object.entries(mapping)) {
    const value = user[property];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      attributes[key] = value;
    }
  }
  const profile: AccountChanges = {};
  const displayName = readString(user, 'displayName');
  const givenName = readString(user, 'givenName');
  const familyName = readString(user, 'surname');
  if (displayName !== undefined) profile.displayName = displayName;
  if (givenName !== undefined) profile.givenName = givenName;
  if (familyName !== undefined) profile.familyName = familyName;
  if (Object.keys(attributes).length > 0) profile.attributes = attributes;
  return profile;
}

function nameAttributes(source: Pick<AccountProfile, 'givenName' | 'familyName'>): GraphObject {
  return {
    ...(source.givenName === undefined ? {} : { givenName: source.givenName }),
    ...(source.familyName === undefined ? {} : { surname: source.familyName }),
  };
}

function displayNameOf(profile: AccountProfile, userPrincipalName: string): string {
  if (profile.displayName !== undefined && profile.displayName.trim() !== '')
    return profile.displayName;
  const fromNames = [profile.givenName, profile.familyName]
    .filter((part) => part !== undefined)
    .join(' ');
  return fromNames.trim() !== ''
    ? fromNames
    : (userPrincipalName.split('@')[0] ?? userPrincipalName);
}

function mappedAttributes(
  attributes: Record<string, SimpleValue> | undefined,
  mapping: Record<string, string>,
): GraphObject {
  const out: GraphObject = {};
  if (attributes === undefined) return out;
  for (const [property, key] of Object.entries(mapping)) {
    const value = attributes[key];
    if (value !== undefined) out[property] = value;
  }
  return out;
}
