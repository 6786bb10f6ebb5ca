import type { QuarantineSettings, TargetFailure } from './quarantine';

/**
 * One worker's count of a target's failures, by connector (issue 14, Quarantine): refused
 * credentials and a failing token authority quarantine at once; 5xx answers and connection
 * failures (each after the transport's retries) quarantine once `failureThreshold` of them
 * came in a row, each within `failureWindowSeconds` of the one before. Any answer of the
 * target in between (even a 404) starts the count again. Kept in memory: each worker
 * counts what it sees, and the quarantine it decides on is shared through Table Storage.
 *
 * @example
 * const health = new TargetHealth(() => settings);
 * health.failed('hr', 'outage', Date.now()); // false until the fifth in a row
 */
export class TargetHealth {
  private readonly streaks = new Map<string, number[]>();

  constructor(private readonly settingsOf: (connector: string) => QuarantineSettings | undefined) {}

  /** Counts a failure; true when it quarantines the connector. */
  failed(connector: string, kind: TargetFailure, atMs: number): boolean {
    const settings = this.settingsOf(connector);
    if (settings?.enabled !== true) return false;
    if (kind !== 'outage') return true;
    const windowMs = settings.failureWindowSeconds * 1000;
    const streak = this.streaks.get(connector) ?? [];
    const last = streak.at(-1);
    const next = last !== undefined && atMs - last <= windowMs ? [...streak, atMs] : [atMs];
    this.streaks.set(connector, next.slice(-settings.failureThreshold));
    return next.length >= settings.failureThreshold;
  }

  /** The target answered: the count starts again. */
  answered(connector: string): void {
    this.streaks.delete(connector);
  }
}
