import type { TargetAccount } from '../../domain/account';
import type { SetEnabledAnswer } from '../connector';
import { patchUser } from './graph-accounts';
import type { GraphContext } from './graph-context';

/**
 * Spec: States and transitions, connector B: lock (false) or unlock (true) is a PATCH of
 * `accountEnabled` (graph-behaviour.md: 204, no body). The read-back the spec asks for is
 * the step machine's: it re-reads on its timer for as long as replication may take.
 */
export async function setEnabled(
  context: GraphContext,
  account: TargetAccount,
  enabled: boolean,
): Promise<SetEnabledAnswer> {
  await patchUser(context, account, { accountEnabled: enabled });
  return {};
}
