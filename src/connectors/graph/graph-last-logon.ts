import type { TargetAccount } from '../../domain/account';
import { ProvisioningError } from '../../domain/errors';
import { latestSignIn } from '../../domain/last-logon';
import type { LastLogonResult } from '../connector';
import { accountErrorContext, type GraphContext } from './graph-context';
import { mapGraphError, readGraphError } from './graph-error-mapper';
import { isRecord } from './graph-objects';
import { readPage } from './graph-http';
import { odataString } from './graph-urls';

/** graph-behaviour.md: a tenant without Entra ID P1/P2 refuses signInActivity with this code. */
export const NO_PREMIUM_LICENCE = 'Authentication_RequestFromNonPremiumTenantOrB2CTenant';

/** The permission signInActivity needs besides reading users (graph-behaviour.md). */
const READ_SIGN_INS = 'AuditLog.Read.All';

/**
 * Spec: Read last logon: GET /users with `signInActivity` in `$select`; the value is the
 * latest of the interactive, non-interactive and successful sign-ins. A tenant without
 * the licence, or an app without AuditLog.Read.All, gets "not available" saying why, not a
 * failure: the rest of the account reads fine.
 */
export async function readLastLogon(
  context: GraphContext,
  account: TargetAccount,
): Promise<LastLogonResult> {
  const errors = accountErrorContext(context, 'lastLogon', account);
  const result = await context.http.send({
    method: 'GET',
    path: '/users',
    query: {
      $filter: `userPrincipalName eq ${odataString(account.accountId)}`,
      $select: 'id,userPrincipalName,signInActivity',
    },
  });
  const refusal = result.status === 403 ? readGraphError(result.body).code : undefined;
  if (refusal === NO_PREMIUM_LICENCE) {
    return {
      status: 'not available',
      detail: 'signInActivity needs a Microsoft Entra ID P1 or P2 licence in the tenant',
    };
  }
  // The account itself was read with GET /users; what this read adds, signInActivity,
  // needs AuditLog.Read.All alone (graph-behaviour.md: signInActivity).
  if (refusal === 'Authorization_RequestDenied') {
    return { status: 'not available', detail: `needs ${READ_SIGN_INS}` };
  }
  if (result.status !== 200) throw mapGraphError(result, errors);
  const user = readPage(result.body, result.describe).value.find((item) => item.id === account.id);
  if (user === undefined) {
    throw new ProvisioningError(
      'ACCOUNT_NOT_FOUND',
      `connector "${context.settings.name}": account "${account.accountId}" not found`,
      {
        object: account.accountId,
      },
    );
  }
  const activity = isRecord(user.signInActivity) ? user.signInActivity : undefined;
  const value = latestSignIn(activity);
  return value === undefined
    ? { status: 'none found', detail: 'signInActivity' }
    : { status: 'found', value, detail: 'signInActivity' };
}
