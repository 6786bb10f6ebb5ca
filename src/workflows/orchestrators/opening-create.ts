import type { OrchestrationContext } from 'durable-functions';
import type { ProvisioningRequest } from '../../domain/provisioning-request';
import { requestStep, type StepsOf } from '../../domain/request-step';
import { newAccountHandle } from '../../domain/step-context';
import { STEP_OPS, type CreateAccountInput } from '../../domain/step-ops';
import type { CreateAccountAnswer, PasswordKept } from '../../domain/target-answers';
import type { ActivityResult } from '../activity-result';
import { ACTIVITY_RETRY, waitFor, type Step } from './activity-calls';
import { withIntentDay } from './dated-intents';
import { leaseEnding } from './lease-guarded-calls';

/**
 * Revision 5 (`StepsOf.createsWithFirstLook`): the create a request starts with, as its step
 * asks for it, to be sent with the request's first look at the connector once that took the
 * lease. The step machine builds it (the one place a create's input is made); the step,
 * driven later on the account as the lease found it, is fed the answer (`openingAnswer`).
 * Undefined: the request does not start with a create, or was accepted before revision 5.
 */
export function openingCreate(
  steps: StepsOf,
  intentDay: ProvisioningRequest['intentDay'],
): CreateAccountInput | undefined {
  if (steps.createsWithFirstLook !== true || steps.actions[0]?.type !== 'create') return undefined;
  const first = withIntentDay(requestStep(steps, 0, newAccountHandle()), intentDay).next();
  if (first.done === true) return undefined;
  const io = first.value;
  return io.kind === 'call' && io.op === STEP_OPS.createAccount
    ? (io.input as CreateAccountInput)
    : undefined;
}

/**
 * The answer the create step takes from the first look: undefined when the step is to send
 * its create itself, under the lease as every write: none was sent; or it failed in a way
 * Durable would have retried the createAccount activity for (its claimed intent tells the
 * next attempt that this one may have made the account), sent again after the wait Durable's
 * first retry makes; or it was refused for the lease ending, sent again once it is renewed.
 */
export function* openingAnswer(
  context: OrchestrationContext,
  created: ActivityResult<CreateAccountAnswer & PasswordKept> | undefined,
): Step<ActivityResult<CreateAccountAnswer & PasswordKept> | undefined> {
  if (created === undefined || created.ok) return created;
  if (leaseEnding(created)) return undefined;
  if (!created.error.retryable) return created;
  yield* waitFor(context, ACTIVITY_RETRY.firstRetryIntervalInMilliseconds);
  return undefined;
}
