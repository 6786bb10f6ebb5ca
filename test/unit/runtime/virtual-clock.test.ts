import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';

describe('VirtualClock', () => {
  it('moves only forward and tells its listeners', () => {
    const clock = new VirtualClock(1_000);
    const seen: number[] = [];
    const unsubscribe = clock.onAdvance((now) => seen.push(now));

    clock.advanceBy(500);
    clock.advanceTo(1_200);
    clock.advanceTo(2_000);
    unsubscribe();
    clock.advanceBy(1);

    expect(clock.now()).toBe(2_001);
    expect(seen).toEqual([1_500, 2_000]);
  });

  it('refuses negative durations', () => {
    expect(() => new VirtualClock(0).advanceBy(-1)).toThrow(RangeError);
  });
});
