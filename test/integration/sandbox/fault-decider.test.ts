import { describe, expect, it } from 'vitest';
import { FaultDecider, checkFaultPlan } from '../../../src/sandbox/faults/index.js';
import type { CallScope, SandboxFaultPlan } from '../../../src/sandbox/faults/index.js';

function decisions(plan: SandboxFaultPlan, scope: CallScope, n: number): string[] {
  const decider = new FaultDecider(() => 0);
  decider.configure(plan);
  return Array.from({ length: n }, () => {
    const fault = decider.decideCall(scope);
    if (fault === undefined) return 'none';
    return fault.kind === 'server error' ? `${fault.kind} ${fault.status}` : fault.kind;
  });
}

const share = (seen: string[], kind: string) => seen.filter((s) => s === kind).length / seen.length;

describe('FaultDecider', () => {
  const plan = { seed: 1, throttleRate: 0.2, serverErrorRate: 0.1, resetRate: 0.05 };

  it('meets each per-call rate as configured, from a seeded, repeatable sequence', () => {
    const seen = decisions(plan, 'call', 20_000);
    expect(share(seen, 'throttle')).toBeCloseTo(0.2, 1);
    expect(share(seen, 'server error 503') + share(seen, 'server error 504')).toBeCloseTo(0.1, 1);
    expect(share(seen, 'reset')).toBeCloseTo(0.05, 1);
    expect(decisions(plan, 'call', 200)).toEqual(seen.slice(0, 200));
  });

  it('keeps throttling off batch envelopes and resets and 504s off sub-requests', () => {
    const envelope = new Set(decisions(plan, 'envelope', 2_000));
    expect(envelope).toEqual(new Set(['none', 'reset', 'server error 503', 'server error 504']));
    const sub = new Set(decisions(plan, 'sub-request', 2_000));
    expect(sub).toEqual(new Set(['none', 'throttle', 'server error 503']));
  });

  it('loses about lostAnswerRate of answers, half as resets and half as 504s', () => {
    const decider = new FaultDecider(() => 0);
    decider.configure({ seed: 2, lostAnswerRate: 0.5 });
    const lost = Array.from({ length: 10_000 }, () => decider.decideLostAnswer());
    expect(lost.filter((l) => l !== undefined).length / lost.length).toBeCloseTo(0.5, 1);
    expect(lost.filter((l) => l === 'reset').length / lost.length).toBeCloseTo(0.25, 1);
    expect(decider.counts()['lost answer']).toBe(lost.filter((l) => l !== undefined).length);
  });

  it('refuses plans it cannot honour', () => {
    expect(() => checkFaultPlan({ seed: 1, throttleRate: 0.6, resetRate: 0.5 })).toThrow(
      /must not exceed 1/,
    );
    expect(() => checkFaultPlan({ seed: 1, lostAnswerRate: 2 })).toThrow(/\[0, 1\]/);
    expect(() => checkFaultPlan({ seed: 1, retryAfterSeconds: [3, 1] })).toThrow(/retryAfter/);
    expect(() => checkFaultPlan({ seed: 1, storms: { everyMs: 10, lengthMs: 20 } })).toThrow(
      /storms/,
    );
  });
});
