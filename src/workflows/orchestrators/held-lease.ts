import type { OrchestrationContext } from 'durable-functions';
import type { SerializedError } from '../../domain/errors';
import type { LeaseResult } from '../../store/account-state';
import { ACTIVITIES } from '../names';
import { callActivity, type Step } from './activity-calls';

/* The account's lease while a request waits on durable timers (a quarantine, a throttling target). */

/**
 * How long a held request keeps the account's lease from each renewal: long enough to be
 * renewed a few times an hour, short enough that an orchestration that vanished frees the
 * account soon.
 */
export const HELD_LEASE_MS = 30 * 60_000;

/** Keeps the account's lease for `ttlMs` from now. */
export function* renewLease(
  context: OrchestrationContext,
  connector: string,
  lease: { accountId: string; owner: string },
  nowMs: number,
  ttlMs: number,
): Step<{ etag?: string } | { error: SerializedError }> {
  const { accountId, owner } = lease;
  const renewed = yield* callActivity<LeaseResult>(context, ACTIVITIES.acquireAccountLease, {
    connector,
    accountId,
    owner,
    nowMs,
    ttlMs,
  });
  if (!renewed.ok) return { error: renewed.error };
  if (!renewed.value.acquired) {
    return {
      error: {
        code: 'ACCOUNT_BUSY',
        message:
          `account "${accountId}" on connector "${connector}" was taken by ` +
          `${renewed.value.holder ?? 'another request'} while this request was held`,
        retryable: true,
        object: accountId,
      },
    };
  }
  return renewed.value.etag === undefined ? {} : { etag: renewed.value.etag };
}
