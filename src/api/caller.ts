import type { HttpRequest } from '@azure/functions';

/** What a route lets its caller do: view, or act (submit requests, imports, compatibility runs). */
export type Access = 'read' | 'operate';

/** The app roles of the console's app registration (Entra ID), as the `roles` claim carries them. */
export const APP_ROLES = {
  reader: 'Provisioning.Reader',
  operator: 'Provisioning.Operator',
} as const;

/** Who called: a holder of a function key (the governance workflow), or a signed-in principal. */
export type Caller = { kind: 'function key'; roles: string[] } | SignedInPrincipal;

/** A caller App Service Authentication signed in (a person, or an app with a token). */
export interface SignedInPrincipal {
  kind: 'principal';
  name: string;
  identityProvider: string;
  roles: string[];
}

/** A key holder may do everything the API offers, as function keys always could. */
export const KEY_HOLDER: Caller = {
  kind: 'function key',
  roles: [APP_ROLES.reader, APP_ROLES.operator],
};

/** How a key holder is recorded where no other name says which key it was (Azure's function keys). */
export const FUNCTION_KEY_HOLDER = 'function key';

/**
 * Who a caller is, as a request records it (`submittedBy`): a signed-in principal by name, a
 * key holder as the key (`keyHolder`: "function key" in Azure, "local API key" on the local
 * host); undefined where no entrance authenticated anyone.
 *
 * @example
 * submitterOf(KEY_HOLDER, 'function key'); // 'function key'
 */
export function submitterOf(caller: Caller | undefined, keyHolder: string): string | undefined {
  if (caller === undefined) return undefined;
  return caller.kind === 'principal' ? caller.name : keyHolder;
}

/** The app role a caller needs for an access; Operator includes Reader. */
export function roleFor(access: Access): string {
  return access === 'read' ? APP_ROLES.reader : APP_ROLES.operator;
}

/** Whether the caller's roles allow the access. */
export function allows(caller: Caller, access: Access): boolean {
  return (
    caller.roles.includes(APP_ROLES.operator) ||
    (access === 'read' && caller.roles.includes(APP_ROLES.reader))
  );
}

/** Claim types App Service uses for roles besides the principal's own `role_typ`. */
const ROLE_CLAIMS = ['roles', 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role'];
const NAME_CLAIMS = [
  'name',
  'preferred_username',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
];

/**
 * The principal App Service Authentication puts in `x-ms-client-principal` (base64 of
 * `{ auth_typ, claims: [{ typ, val }], name_typ, role_typ }`), or undefined when the header
 * is absent or not of that shape. Believe it only where App Service Authentication runs: it
 * strips the header from what callers send; nothing else does.
 *
 * @example
 * parseClientPrincipal(request.headers); // { kind: 'principal', name: 'ada@contoso.com', roles: ['Provisioning.Reader'], ... }
 */
export function parseClientPrincipal(
  headers: HttpRequest['headers'],
): SignedInPrincipal | undefined {
  const header = headers.get('x-ms-client-principal');
  if (header === null || header === '') return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null) return undefined;
  const principal = decoded as {
    auth_typ?: unknown;
    claims?: unknown;
    name_typ?: unknown;
    role_typ?: unknown;
  };
  if (!Array.isArray(principal.claims)) return undefined;
  const claims = principal.claims.filter(
    (claim): claim is { typ: string; val: string } =>
      typeof (claim as { typ?: unknown } | null)?.typ === 'string' &&
      typeof (claim as { val?: unknown }).val === 'string',
  );
  const roleTypes = new Set([
    ...ROLE_CLAIMS,
    ...(typeof principal.role_typ === 'string' ? [principal.role_typ] : []),
  ]);
  const nameTypes = [
    ...(typeof principal.name_typ === 'string' ? [principal.name_typ] : []),
    ...NAME_CLAIMS,
  ];
  const name =
    headers.get('x-ms-client-principal-name') ??
    nameTypes
      .map((typ) => claims.find((claim) => claim.typ === typ)?.val)
      .find((val) => val !== undefined) ??
    'signed-in caller';
  return {
    kind: 'principal',
    name,
    identityProvider:
      headers.get('x-ms-client-principal-idp') ??
      (typeof principal.auth_typ === 'string' ? principal.auth_typ : 'unknown'),
    roles: [
      ...new Set(claims.filter((claim) => roleTypes.has(claim.typ)).map((claim) => claim.val)),
    ],
  };
}
