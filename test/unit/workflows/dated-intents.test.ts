import { describe, expect, it } from 'vitest';
import { call, parallel, type Machine, type StepIo } from '../../../src/domain/step-machine';
import { withIntentDay } from '../../../src/workflows/orchestrators/dated-intents';

/** A machine that asks for a read, a write with an intent, and two such writes at once. */
function* steps(): Machine<unknown[]> {
  const read = yield* call('findAccount', { connector: 'hr', accountId: 'ada' });
  const write = yield* call('createAccount', { connector: 'hr', intentKey: 'k1' });
  const both = yield* parallel('writeMemberships', [
    { connector: 'hr', intentKey: 'k2' },
    { connector: 'hr', intentKey: 'k3' },
  ]);
  return [read, write, both];
}

/** Runs a machine, answering each I/O with its index; the I/O it asked for, and its result. */
function run<T>(machine: Machine<T>): { asked: StepIo[]; result: T } {
  const asked: StepIo[] = [];
  let next = machine.next();
  while (next.done !== true) {
    asked.push(next.value);
    next = machine.next(asked.length);
  }
  return { asked, result: next.value };
}

describe('withIntentDay', () => {
  it("adds the request's day to every write intent, and nothing else to any input", () => {
    const { asked, result } = run(withIntentDay(steps(), '2026-11-23'));
    expect(asked).toEqual([
      { kind: 'call', op: 'findAccount', input: { connector: 'hr', accountId: 'ada' } },
      {
        kind: 'call',
        op: 'createAccount',
        input: { connector: 'hr', intentKey: 'k1', intentDay: '2026-11-23' },
      },
      {
        kind: 'parallel',
        op: 'writeMemberships',
        inputs: [
          { connector: 'hr', intentKey: 'k2', intentDay: '2026-11-23' },
          { connector: 'hr', intentKey: 'k3', intentDay: '2026-11-23' },
        ],
      },
    ]);
    // The answers reach the machine as they were given.
    expect(result).toEqual([1, 2, 3]);
  });

  it('leaves the inputs of a request accepted before intents were kept by day as they were', () => {
    expect(run(withIntentDay(steps(), undefined))).toEqual(run(steps()));
  });
});
