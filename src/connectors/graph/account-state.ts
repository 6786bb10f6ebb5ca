import type { TargetAccount } from '../../domain/account';
import { ProvisioningError } from '../../domain/errors';
import { patchUser } from './graph-accounts';
import { accountErrorContext, type GraphContext } from './graph-context';
import { isRecord } from './graph-objects';
import { segment } from './graph-urls';

/**
 * Waits before each further read-back: a PATCH replicates asynchronously
 * (graph-behaviour.md, Eventual consistency), so a first read may still show the old state.
 */
export const STATE_READ_BACK_DELAYS_MS = [250, 500, 1_000, 2_000];

/**
 * Spec: States and transitions, connector B: lock (false) or unlock (true) is a PATCH of
 * `accountEnabled`, then the state is read back. Not confirmed after the re-reads ->
 * `ACCOUNT_STATE_NOT_CONFIRMED` naming the expected and the seen state.
 */
export async function setEnabled(
  context: GraphContext,
  account: TargetAccount,
  enabled: boolean,
): Promise<void> {
  await patchUser(context, account, { accountEnabled: enabled });
  let seen: boolean | undefined;
  for (let read = 0; ; read++) {
    seen = await readEnabled(context, account);
    if (seen === enabled) return;
    const delay = STATE_READ_BACK_DELAYS_MS[read];
    if (delay === undefined) break;
    await context.sleep(delay);
  }
  const reads = STATE_READ_BACK_DELAYS_MS.length + 1;
  throw new ProvisioningError(
    'ACCOUNT_STATE_NOT_CONFIRMED',
    `connector "${context.settings.name}": ${enabled ? 'unlock' : 'lock'} of account "${account.accountId}" ` +
      `not confirmed: expected accountEnabled=${enabled} (${stateWord(enabled)}), read back ` +
      `${seen === undefined ? 'no account' : `accountEnabled=${seen} (${stateWord(seen)})`} after ${reads} reads`,
    {
      object: account.accountId,
      retryable: true,
      details: { expected: enabled, seen: seen ?? null, reads },
    },
  );
}

/** The account's `accountEnabled` as Graph shows it now; undefined while it 404s (replication). */
async function readEnabled(
  context: GraphContext,
  account: TargetAccount,
): Promise<boolean | undefined> {
  const result = await context.http.expect(
    {
      method: 'GET',
      path: `/users/${segment(account.id)}`,
      query: { $select: 'id,accountEnabled' },
    },
    [200, 404],
    accountErrorContext(context, 'readAccounts', account),
  );
  if (result.status === 404 || !isRecord(result.body)) return undefined;
  return result.body.accountEnabled !== false;
}

function stateWord(enabled: boolean): string {
  return enabled ? 'unlocked' : 'locked';
}
