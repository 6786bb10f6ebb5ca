import type { SerializedError } from './errors';
import type { StepOp } from './step-ops';

/**
 * The answer to one I/O a step machine asked for. Expected failures are data: error classes
 * do not survive the trip through an orchestration's history (platform-notes.md).
 */
export type IoResult<T> = { ok: true; value: T } | { ok: false; error: SerializedError };

/**
 * One I/O a step machine asks its driver to do. The machine itself does none: it is a
 * generator over these, fed with their answers (DESIGN invariant 10).
 * - `call`: one operation (an activity in production); answered with an `IoResult`.
 * - `parallel`: the same operation for several inputs at once; answered with `IoResult[]`.
 * - `wait`: let time pass (a durable timer in production); answered with nothing.
 * - `now`: the current time in ms (the orchestration's deterministic clock in production).
 */
export type StepIo =
  | { kind: 'call'; op: StepOp; input: unknown }
  | { kind: 'parallel'; op: StepOp; inputs: readonly unknown[] }
  | { kind: 'wait'; ms: number }
  | { kind: 'now' };

/** A pure step machine: yields I/O, receives its answers, returns its result. */
export type Machine<T> = Generator<StepIo, T, unknown>;

/** Asks for one operation. */
export function* call<T>(op: StepOp, input: unknown): Machine<IoResult<T>> {
  return (yield { kind: 'call', op, input }) as IoResult<T>;
}

/** Asks for one operation per input, at once; no input, no I/O. */
export function* parallel<T>(op: StepOp, inputs: readonly unknown[]): Machine<IoResult<T>[]> {
  if (inputs.length === 0) return [];
  return (yield { kind: 'parallel', op, inputs }) as IoResult<T>[];
}

/** Lets `ms` pass. */
export function* wait(ms: number): Machine<void> {
  yield { kind: 'wait', ms };
}

/** The current time in ms, as the driver's clock says. */
export function* now(): Machine<number> {
  return (yield { kind: 'now' }) as number;
}

/** What an async driver needs: the operations, a clock and a way to wait. */
export interface AsyncIo {
  perform(op: StepOp, input: unknown): Promise<IoResult<unknown>>;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/**
 * Drives a step machine with plain async I/O: the driver of the tests and of anything that
 * runs a step outside an orchestration. The orchestration's driver does the same with
 * activities and durable timers.
 *
 * @example
 * const outcome = await driveAsync(accountStep(input), { perform, now: Date.now, sleep });
 */
export async function driveAsync<T>(machine: Machine<T>, io: AsyncIo): Promise<T> {
  let next = machine.next();
  while (next.done !== true) {
    const request = next.value;
    let answer: unknown;
    switch (request.kind) {
      case 'call':
        answer = await io.perform(request.op, request.input);
        break;
      case 'parallel':
        answer = await Promise.all(request.inputs.map((input) => io.perform(request.op, input)));
        break;
      case 'wait':
        await io.sleep(request.ms);
        break;
      case 'now':
        answer = io.now();
        break;
    }
    next = machine.next(answer);
  }
  return next.value;
}
