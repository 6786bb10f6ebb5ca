import { flowingClock, type DriverClock, type FlowingClock } from './virtual-clock';

/** A durable timer the driver waits on. */
export interface PendingTimer {
  instanceId: string;
  timerId: number;
  fireAt: number;
}

/** setTimeout's longest delay; longer waits re-arm. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The durable timers of all instances. With a flowing clock (the real one, or real time sped
 * up) each timer is a setTimeout that fires no earlier than its fire time; with a virtual
 * clock timers fire when the clock
 * reaches them (`fireDue`, called on every advance).
 */
export class TimerSchedule {
  private readonly timers = new Map<string, PendingTimer & { handle?: NodeJS.Timeout }>();
  private readonly flowing: FlowingClock | undefined;

  constructor(
    clock: DriverClock,
    private readonly onFire: (timer: PendingTimer) => void,
  ) {
    this.flowing = flowingClock(clock);
  }

  get size(): number {
    return this.timers.size;
  }

  /** Schedules a timer; with a virtual clock one already due fires on the next `fireDue`. */
  add(timer: PendingTimer): void {
    const entry: PendingTimer & { handle?: NodeJS.Timeout } = { ...timer };
    this.timers.set(key(timer.instanceId, timer.timerId), entry);
    if (this.flowing !== undefined) this.arm(entry, this.flowing);
  }

  /** Cancels one timer of an instance, or all of them. */
  cancel(instanceId: string, timerId?: number): void {
    for (const [k, timer] of this.timers) {
      if (timer.instanceId !== instanceId) continue;
      if (timerId !== undefined && timer.timerId !== timerId) continue;
      clearTimeout(timer.handle);
      this.timers.delete(k);
    }
  }

  /** Whether the instance waits on a timer. */
  has(instanceId: string): boolean {
    for (const timer of this.timers.values()) if (timer.instanceId === instanceId) return true;
    return false;
  }

  /** The earliest fire time, if any timer is pending. */
  earliest(): number | undefined {
    let earliest: number | undefined;
    for (const timer of this.timers.values()) {
      if (earliest === undefined || timer.fireAt < earliest) earliest = timer.fireAt;
    }
    return earliest;
  }

  /** Fires every timer due at `now`, earliest first. */
  fireDue(now: number): void {
    const due = [...this.timers.values()]
      .filter((timer) => timer.fireAt <= now)
      .sort((a, b) => a.fireAt - b.fireAt || a.timerId - b.timerId);
    for (const timer of due) this.fire(timer);
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer.handle);
    this.timers.clear();
  }

  private arm(timer: PendingTimer & { handle?: NodeJS.Timeout }, clock: FlowingClock): void {
    const delay = Math.min(Math.ceil(clock.realMs(timer.fireAt - clock.now())), MAX_TIMEOUT_MS);
    timer.handle = setTimeout(() => {
      // setTimeout may run a millisecond early: a durable timer never fires before its time.
      if (clock.now() < timer.fireAt) this.arm(timer, clock);
      else this.fire(timer);
    }, delay);
  }

  private fire(timer: PendingTimer & { handle?: NodeJS.Timeout }): void {
    const k = key(timer.instanceId, timer.timerId);
    if (this.timers.get(k) !== timer) return;
    this.timers.delete(k);
    this.onFire({ instanceId: timer.instanceId, timerId: timer.timerId, fireAt: timer.fireAt });
  }
}

function key(instanceId: string, timerId: number): string {
  return `${timerId}\u0000${instanceId}`;
}
