import type { Machine, StepIo } from '../../domain/step-machine';

/**
 * The step machine with the request's day on every write intent it announces (`intentDay`
 * beside `intentKey`): the intent is kept under that day and purged with it. The day is the
 * orchestration input's, so a replay, a retried activity and a step run again after a hold
 * all claim in the same place, whatever the clock says by then. No day (a request accepted
 * before intents were kept by day): the machine as it is, its intents where its earlier runs
 * recorded them.
 */
export function* withIntentDay<T>(machine: Machine<T>, day: string | undefined): Machine<T> {
  if (day === undefined) return yield* machine;
  let next = machine.next();
  while (next.done !== true) {
    next = machine.next(yield dated(next.value, day));
  }
  return next.value;
}

function dated(io: StepIo, day: string): StepIo {
  if (io.kind === 'call') return { ...io, input: withDay(io.input, day) };
  if (io.kind === 'parallel')
    return { ...io, inputs: io.inputs.map((input) => withDay(input, day)) };
  return io;
}

function withDay(input: unknown, day: string): unknown {
  return typeof input === 'object' && input !== null && 'intentKey' in input
    ? { ...input, intentDay: day }
    : input;
}
