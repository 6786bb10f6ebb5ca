import type { ThrottleSettings } from './graph-sandbox-types.js';

/**
 * A sliding-window request budget on the sandbox clock. Requests answered 429 still
 * count (graph-behaviour.md: "Requests sent while throttled still count"), so a client
 * that ignores `Retry-After` stays throttled.
 */
export class RequestBudget {
  private settings: ThrottleSettings | undefined;
  private readonly stamps: number[] = [];
  private head = 0;

  constructor(settings: ThrottleSettings | undefined) {
    this.settings = settings;
  }

  configure(settings: ThrottleSettings | undefined): void {
    this.settings = settings;
    this.stamps.length = 0;
    this.head = 0;
  }

  /** Counts one request; returns the `Retry-After` seconds when it is over budget. */
  take(now: number): number | undefined {
    const settings = this.settings;
    if (settings === undefined) return undefined;
    while (this.head < this.stamps.length && this.stamps[this.head]! <= now - settings.windowMs)
      this.head += 1;
    if (this.head > 1024) {
      this.stamps.splice(0, this.head);
      this.head = 0;
    }
    this.stamps.push(now);
    return this.stamps.length - this.head > settings.limit ? settings.retryAfterSeconds : undefined;
  }
}
