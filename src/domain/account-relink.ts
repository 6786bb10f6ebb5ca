import type { TargetAccount } from './account';
import type { AccountRecord } from './account-record';
import type { SerializedError } from './errors';
import { mayStillBeReplicating } from './visibility';

/**
 * What a lookup makes of an account found by its account ID when the service's record links
 * the account ID to another object, which a read by its id no longer shows (DESIGN invariant
 * 11: a name alone is no evidence, as for a create's `taken`):
 * - `lag`: the service created the linked object less than the visibility window ago, so its
 *   "not found" may be a replica behind (graph-behaviour.md, Eventual consistency), and the
 *   object the name shows another replica's older one: the linked object is still the account;
 * - else the error the lookup fails with (`ACCOUNT_EXISTS`): the linked object was deleted
 *   outside and someone else's may hold the name now (a new employee's); nothing acts on it,
 *   nothing relinks, an operator decides.
 *
 * @example
 * judgeNameMatch({ connector: 'entra', accountId: 'ada@contoso.example' }, record, found, Date.now(), 30_000);
 * // { code: 'ACCOUNT_EXISTS', message: 'account "ada@contoso.example" on connector "entra" ...', ... }
 */
export function judgeNameMatch(
  where: { connector: string; accountId: string },
  record: AccountRecord,
  found: TargetAccount,
  nowMs: number,
  windowMs: number,
): 'lag' | SerializedError {
  const createdAtMs = record.createdAt === undefined ? undefined : Date.parse(record.createdAt);
  if (mayStillBeReplicating(createdAtMs, nowMs, windowMs)) return 'lag';
  return linkedAccountReplaced(where, record.targetId, found);
}

/** The error of a lookup whose linked account is gone and whose account ID another account holds. */
function linkedAccountReplaced(
  where: { connector: string; accountId: string },
  linkedId: string,
  found: TargetAccount,
): SerializedError {
  const state =
    found.enabled === undefined
      ? 'its enabled state not shown'
      : found.enabled
        ? 'enabled'
        : 'disabled';
  const shown = found.displayName === undefined ? '' : `, "${found.displayName}"`;
  return {
    code: 'ACCOUNT_EXISTS',
    message:
      `account "${where.accountId}" on connector "${where.connector}": the service's record links ` +
      `it to id ${linkedId}, which a read by that id no longer finds, and the account ID now ` +
      `belongs to another account (id ${found.id}${shown}, ${state}) that nothing shows is this ` +
      `service's. The request did not act on that account and did not link it: an operator must ` +
      `decide whether it is this person's account; if it is someone else's, choose another account ID`,
    retryable: false,
    object: where.accountId,
    details: {
      linkedTargetId: linkedId,
      targetId: found.id,
      enabled: found.enabled ?? null,
      linked: false,
    },
  };
}
