import type { TargetAccount } from './account';
import { isLinked, type AccountRecord } from './account-record';
import type { SerializedError } from './errors';
import type { CreateAccountAnswer } from './target-answers';

/**
 * Whether the account a create met under its account ID is the one this service made (or
 * took on) for the identity: the service's own record links the account ID to that object,
 * or this request's own create may have made it (`maybeOurs`: its intent was claimed by an
 * earlier attempt, or an answer was lost after sending). A name alone is no evidence: a
 * rehire's create meets the leaver's deactivated account, a request for `jsmith` another John
 * Smith (spec: create's precondition is "account absent").
 */
export function isOwnAccount(
  record: AccountRecord | null | undefined,
  account: TargetAccount,
  maybeOurs: boolean,
): boolean {
  return maybeOurs || (isLinked(record) && record.targetId === account.id);
}

/**
 * A create's `adopted` answer as the evidence has it: adopted when the account is this
 * service's (`isOwnAccount`), else `taken`.
 */
export function judgeAdoption(
  answer: Extract<CreateAccountAnswer, { outcome: 'adopted' }>,
  record: AccountRecord | null | undefined,
): CreateAccountAnswer {
  return isOwnAccount(record, answer.account, answer.maybeOurs)
    ? answer
    : { ...answer, outcome: 'taken' };
}

/** The error of a create whose account ID is taken by an account nothing shows to be this service's. */
export function accountExists(
  where: { connector: string; accountId: string },
  account: TargetAccount,
): SerializedError {
  const state =
    account.enabled === undefined
      ? 'its enabled state not shown'
      : account.enabled
        ? 'enabled'
        : 'disabled';
  return {
    code: 'ACCOUNT_EXISTS',
    message:
      `account "${where.accountId}" already exists on connector "${where.connector}" ` +
      `(id ${account.id}${account.displayName === undefined ? '' : `, "${account.displayName}"`}, ` +
      `${state}) and is not linked to this service: nothing shows this service created it ` +
      `for this identity, so the create did not take it over and no later step of the request ` +
      `ran on it. If it is this person's account, submit unlock, update or grant for it ` +
      `(the service then links it); if it is someone else's, choose another account ID`,
    retryable: false,
    object: where.accountId,
    details: { targetId: account.id, enabled: account.enabled ?? null, linked: false },
  };
}
