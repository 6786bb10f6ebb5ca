import type { OrchestrationContext } from 'durable-functions';
import type { Machine } from '../../domain/step-machine';
import { callActivities, callActivity, waitFor, type Step } from './activity-calls';

/**
 * Drives a step machine of src/domain inside an orchestration: each operation is the
 * activity of the same name, each wait a durable timer, and the time the orchestration's
 * replay-safe clock. On replay the machine is fed the same answers from the history, so it
 * takes the same path (DESIGN invariant 10).
 */
export function* driveMachine<T>(context: OrchestrationContext, machine: Machine<T>): Step<T> {
  let next = machine.next();
  while (next.done !== true) {
    const request = next.value;
    let answer: unknown;
    switch (request.kind) {
      case 'call':
        answer = yield* callActivity(context, request.op, request.input);
        break;
      case 'parallel':
        answer = yield* callActivities(context, request.op, request.inputs);
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
