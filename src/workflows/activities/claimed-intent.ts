import { isProvisioningError, type SerializedError } from '../../domain/errors';
import type { IntentInput } from '../../domain/step-ops';
import type { WorkflowServices } from '../workflow-services';

/**
 * Claims a write's intent, then runs the write (DESIGN invariant 1): `write` is told whether
 * an earlier run claimed it (`tried`: an "already in place" may be that run's change). A claim
 * this run made is withdrawn when `write` failed and `changedNothing` says its error proves
 * nothing was applied (refused, throttled, never sent), so that the write's next run, after a
 * throttling hold, a quarantine or a retry, does not take a change someone else made meanwhile
 * for its own. `write` is the write call alone: what follows it (`after`: deleting a spent
 * secret, reading the record) may fail too, but its failure says nothing of the write, and
 * the claim stays. A withdrawal that fails leaves the claim, as before there were withdrawals.
 */
export async function underIntent<A, T = A>(
  s: WorkflowServices,
  input: IntentInput,
  changedNothing: (error: SerializedError) => boolean,
  write: (tried: boolean) => Promise<A>,
  after: (answer: A, tried: boolean) => Promise<T> | T = (answer) => answer as unknown as T,
): Promise<T> {
  const tried = await s.intents.claim(input.intentKey, input.intentDay);
  let answer: A;
  try {
    answer = await write(tried);
  } catch (error) {
    if (!tried && isProvisioningError(error) && changedNothing(error.toJSON())) {
      await withdrawClaim(s, input);
    }
    throw error;
  }
  return after(answer, tried);
}

/** Withdraws a write's claimed intent; one that cannot be withdrawn stays claimed, with a warning. */
export async function withdrawClaim(s: WorkflowServices, input: IntentInput): Promise<void> {
  try {
    await s.intents.withdraw(input.intentKey, input.intentDay);
  } catch (failure) {
    const code = isProvisioningError(failure) ? failure.code : 'unexpected';
    s.logger.warn('a write intent could not be withdrawn; it stays claimed', { code });
  }
}
