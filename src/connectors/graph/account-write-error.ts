import type { TargetAccount } from '../../domain/account';
import { isProvisioningError, type ProvisioningError } from '../../domain/errors';
import type { HttpResult } from '../http/transport';
import { accountErrorContext, type GraphContext } from './graph-context';
import { mapGraphError, readGraphError, type ForbiddenCause } from './graph-error-mapper';
import { readString } from './graph-objects';
import { assessClaim } from './graph-permissions';
import { segment } from './graph-urls';

/** graph-behaviour.md: memberOf tells directory roles apart by this type. */
const DIRECTORY_ROLE_ODATA_TYPE = '#microsoft.graph.directoryRole';

/**
 * The error of a write on an account (PATCH, DELETE) that Graph did not accept. A 403
 * `Authorization_RequestDenied` is the same answer for a missing User.ReadWrite.All and
 * for an account holding a directory role, which in app-only calls only an app holding a
 * privileged Entra role may change (Graph's user update and delete pages): the cause is
 * read out of the account's memberOf and the token's roles claim (ForbiddenCause).
 */
export async function accountWriteError(
  context: GraphContext,
  account: TargetAccount,
  result: HttpResult,
): Promise<ProvisioningError> {
  const errors = accountErrorContext(context, 'writeAccounts', account);
  const denied =
    result.status === 403 && readGraphError(result.body).code === 'Authorization_RequestDenied';
  if (!denied) return mapGraphError(result, errors);
  const forbidden = await forbiddenCause(context, account);
  return mapGraphError(result, forbidden === undefined ? errors : { ...errors, forbidden });
}

async function forbiddenCause(
  context: GraphContext,
  account: TargetAccount,
): Promise<ForbiddenCause | undefined> {
  let containers;
  try {
    containers = await context.http.list(
      {
        method: 'GET',
        path: `/users/${segment(account.id)}/memberOf`,
        query: { $select: 'id,displayName', $top: context.settings.pageSize },
      },
      accountErrorContext(context, 'readAccountGroups', account),
    );
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    return { kind: 'not-told', why: `the account's memberOf could not be read (${error.code})` };
  }
  // A role the app may not read still shows its type (graph-behaviour.md): named by id then.
  const roles = containers
    .filter((object) => object['@odata.type'] === DIRECTORY_ROLE_ODATA_TYPE)
    .map((role) => readString(role, 'displayName') ?? `with id ${readString(role, 'id') ?? '?'}`);
  if (roles.length > 0) return { kind: 'privileged-account', roles };
  const token = await context.tokens.acquire();
  const claim = assessClaim('writeAccounts', token.roles);
  return token.rolesClaim.kind === 'roles' && claim.met
    ? { kind: 'permission-held', by: claim.grantedBy.join(' and ') }
    : undefined;
}
