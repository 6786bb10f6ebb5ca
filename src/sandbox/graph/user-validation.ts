import { USER_WRITABLE_PROPERTIES } from './directory-object-shapes.js';
import { GraphRequestError } from './graph-error.js';

const REQUIRED_ON_CREATE = [
  'accountEnabled',
  'displayName',
  'mailNickname',
  'passwordProfile',
  'userPrincipalName',
];
const BOOLEAN_PROPERTIES = new Set(['accountEnabled']);
const ARRAY_PROPERTIES = new Set(['businessPhones', 'otherMails']);
/** Characters Entra ID refuses in mailNickname (besides spaces and non-ASCII). */
const MAIL_NICKNAME_FORBIDDEN = /[@()\\[\]";:<>,\s]/;

function invalidValue(property: string): GraphRequestError {
  return new GraphRequestError(
    400,
    'Request_BadRequest',
    `Invalid value specified for property '${property}' of resource 'User'.`,
  );
}

/**
 * Checks a `POST /users` body (graph-behaviour.md: Users): required properties, known
 * properties only, a verified UPN domain, a complex enough password.
 */
export function validateNewUser(
  body: unknown,
  verifiedDomains: readonly string[],
): Record<string, unknown> {
  const user = asObject(body);
  for (const property of REQUIRED_ON_CREATE) {
    if (user[property] === undefined || user[property] === null) throw invalidValue(property);
  }
  validateProperties(user, verifiedDomains);
  return user;
}

/** Checks a `PATCH /users/{id}` body; the same rules apply to each property present. */
export function validateUserChanges(
  body: unknown,
  verifiedDomains: readonly string[],
): Record<string, unknown> {
  const changes = asObject(body);
  validateProperties(changes, verifiedDomains);
  return changes;
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GraphRequestError(400, 'BadRequest', 'Empty Payload. JSON content expected.');
  }
  return body as Record<string, unknown>;
}

function validateProperties(
  user: Record<string, unknown>,
  verifiedDomains: readonly string[],
): void {
  for (const [property, value] of Object.entries(user)) {
    const known =
      USER_WRITABLE_PROPERTIES.includes(property) || /^extension_[0-9a-f]+_\w+$/i.test(property);
    if (!known) {
      throw new GraphRequestError(
        400,
        'Request_BadRequest',
        `Property '${property}' does not exist as a declared property or extension property.`,
      );
    }
    if (BOOLEAN_PROPERTIES.has(property) && typeof value !== 'boolean')
      throw invalidValue(property);
    if (ARRAY_PROPERTIES.has(property) && !Array.isArray(value)) throw invalidValue(property);
  }
  if (user['displayName'] !== undefined && !nonEmptyString(user['displayName']))
    throw invalidValue('displayName');
  if (user['mailNickname'] !== undefined) validateMailNickname(user['mailNickname']);
  if (user['userPrincipalName'] !== undefined)
    validateUserPrincipalName(user['userPrincipalName'], verifiedDomains);
  if (user['passwordProfile'] !== undefined) validatePasswordProfile(user['passwordProfile']);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function validateMailNickname(value: unknown): void {
  const ascii = typeof value === 'string' && /^[\x21-\x7e]+$/.test(value);
  if (
    !nonEmptyString(value) ||
    !ascii ||
    value.length > 64 ||
    MAIL_NICKNAME_FORBIDDEN.test(value)
  ) {
    throw invalidValue('mailNickname');
  }
}

/*
 * Entra ID's user name policy for userPrincipalName: ASCII letters, digits and ' . - _ ! # ^ ~
 * before the "@" (no "&", no spaces, no other script), no "." at its start or just before
 * the "@", at most 64 characters before it, 48 after it and 113 in all.
 */
const UPN_LOCAL_PART = /^[A-Za-z0-9'.\-_!#^~]{1,64}$/;

function invalidUserPrincipalName(): GraphRequestError {
  return new GraphRequestError(
    400,
    'Request_BadRequest',
    'Property userPrincipalName is invalid.',
    {
      extra: { details: [{ code: 'InvalidValue', target: 'userPrincipalName' }] },
    },
  );
}

function validateUserPrincipalName(value: unknown, verifiedDomains: readonly string[]): void {
  if (!nonEmptyString(value)) throw invalidValue('userPrincipalName');
  const at = value.lastIndexOf('@');
  const local = value.slice(0, Math.max(at, 0));
  const domainPart = value.slice(at + 1);
  if (
    at <= 0 ||
    value.length > 113 ||
    domainPart.length > 48 ||
    !UPN_LOCAL_PART.test(local) ||
    local.startsWith('.') ||
    local.endsWith('.')
  ) {
    throw invalidUserPrincipalName();
  }
  const domain = domainPart.toLowerCase();
  if (!verifiedDomains.some((verified) => verified.toLowerCase() === domain)) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      'The domain portion of the userPrincipalName property is invalid. You must use one of the verified domain names in your organization.',
    );
  }
}

/**
 * Entra ID's password rule: 8 to 256 characters from at least three of upper case,
 * lower case, digits and symbols.
 */
function validatePasswordProfile(value: unknown): void {
  if (typeof value !== 'object' || value === null) throw invalidValue('passwordProfile');
  const password = (value as Record<string, unknown>)['password'];
  if (typeof password !== 'string' || password.length === 0) throw invalidValue('passwordProfile');
  const classes = [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) =>
    re.test(password),
  ).length;
  if (password.length < 8 || password.length > 256 || classes < 3) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      'The specified password does not comply with password complexity requirements. Please provide a different password.',
    );
  }
}
