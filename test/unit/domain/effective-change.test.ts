import { describe, expect, it } from 'vitest';
import {
  enabledChangeIsEffective,
  isEffectiveMembershipWrite,
} from '../../../src/domain/effective-change';
import type { MembershipWriteAnswer } from '../../../src/domain/target-answers';

const answer = (
  outcome: MembershipWriteAnswer['outcome'],
  change: 'added' | 'removed' = 'added',
  maybeOurs = false,
): MembershipWriteAnswer => ({ groupId: 'g', groupName: 'G', change, outcome, maybeOurs });

describe('isEffectiveMembershipWrite', () => {
  it('an applied write is effective whatever was known before', () => {
    expect(isEffectiveMembershipWrite(answer('applied'), true)).toBe(true);
  });
  it('"already" is effective only when an earlier attempt may have written it and it was needed', () => {
    expect(isEffectiveMembershipWrite(answer('already'), false)).toBe(false);
    expect(isEffectiveMembershipWrite(answer('already', 'added', true), false)).toBe(true);
    // A 503 that was not applied, then "not a member": nothing was removed.
    expect(isEffectiveMembershipWrite(answer('already', 'removed', true), false)).toBe(false);
    // A new account no read shows yet is a member of nothing.
    expect(isEffectiveMembershipWrite(answer('already', 'added', true), undefined)).toBe(true);
  });
  it('an acknowledged write is judged by the state before', () => {
    expect(isEffectiveMembershipWrite(answer('acknowledged'), false)).toBe(true);
    expect(isEffectiveMembershipWrite(answer('acknowledged'), true)).toBe(false);
    expect(isEffectiveMembershipWrite(answer('acknowledged', 'removed'), true)).toBe(true);
  });
  it('a write the target refused for an unknown account is no change', () => {
    expect(isEffectiveMembershipWrite(answer('accountNotFound'), false)).toBe(false);
  });
});

describe('enabledChangeIsEffective', () => {
  const window = { visibilityWindowMs: 30_000 };
  it('a record younger than the window at the time of the read wins over the read', () => {
    const recorded = { value: false, atMs: 0 };
    expect(
      enabledChangeIsEffective({
        ...window,
        target: true,
        recorded,
        seen: { value: true, atMs: 8_000 },
      }),
    ).toBe(true);
    expect(
      enabledChangeIsEffective({
        ...window,
        target: false,
        recorded,
        seen: { value: true, atMs: 8_000 },
      }),
    ).toBe(false);
  });
  it('a read made long enough after the record wins (someone else may have changed it since)', () => {
    expect(
      enabledChangeIsEffective({
        ...window,
        target: false,
        recorded: { value: false, atMs: 0 },
        seen: { value: true, atMs: 31_000 },
      }),
    ).toBe(true);
  });
  it('without a read, the record tells; with nothing known, a write counts as a change', () => {
    expect(
      enabledChangeIsEffective({ ...window, target: false, recorded: { value: false, atMs: 0 } }),
    ).toBe(false);
    expect(enabledChangeIsEffective({ ...window, target: false })).toBe(true);
  });
});
