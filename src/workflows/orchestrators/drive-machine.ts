import type { OrchestrationContext } from 'durable-functions';
import type { Machine } from '../../domain/step-machine';
import type { StepOp } from '../../domain/step-ops';
import { callActivities, callActivity, waitFor, type Step } from './activity-calls';
import { ACCOUNT_WRITES, callUnderLease, type WriteLease } from './lease-guarded-calls';

/**
 * Drives a step machine of src/domain inside an orchestration: each operation is the
 * activity of the same name, each wait a durable timer, and the time the orchestration's
 * replay-safe clock. On replay the machine is fed the same answers from the history, so it
 * takes the same path (DESIGN invariant 10). With `lease`, the writes of the account run
 * under the request's lease (`callUnderLease`). `answered`: the answer to the machine's first
 * operation when it is `op`, made by an activity before (revision 5: a create sent with the
 * request's first look at the connector); that operation is not called again.
 */
export function* driveMachine<T>(
  context: OrchestrationContext,
  machine: Machine<T>,
  lease?: WriteLease,
  answered?: { op: StepOp; answer: unknown },
): Step<T> {
  let next = machine.next();
  if (next.done !== true && next.value.kind === 'call' && next.value.op === answered?.op) {
    next = machine.next(answered.answer);
  }
  while (next.done !== true) {
    const request = next.value;
    const underLease = lease !== undefined && 'op' in request && ACCOUNT_WRITES.has(request.op);
    let answer: unknown;
    switch (request.kind) {
      case 'call':
        answer = underLease
          ? (yield* callUnderLease(context, lease, request.op, [request.input], true))[0]
          : yield* callActivity(context, request.op, request.input);
        break;
      case 'parallel':
        answer = underLease
          ? yield* callUnderLease(context, lease, request.op, request.inputs)
          : yield* callActivities(context, request.op, request.inputs);
        break;
      case 'wait':
        yield* waitFor(context, request.ms);
        break;
      case 'now':
        answer = context.df.currentUtcDateTime.getTime();
        break;
    }
    next = machine.next(answer);
  }
  return next.value;
}
