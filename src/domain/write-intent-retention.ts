/**
 * How long write intents are kept. An intent is needed as long as its request may still run
 * the write again: a retried activity (seconds), a step run again after a quarantine hold
 * (the holds of a request add up to at most its connector's `quarantine.maxHoldHours`, 720 h
 * at most), the lease waits before and between holds (10 minutes each) and the steps' own
 * time (minutes). Kept longer than the longest hold by a week at least, for those and for a
 * Functions app stopped for a while with requests in flight.
 */
export const WRITE_INTENT_RETENTION = {
  /** Two weeks past the longest hold any connector may allow (720 h). */
  defaultDays: 45,
  /** The least margin over a connector's `maxHoldHours`, in days. */
  marginDays: 7,
  maxDays: 3650,
} as const;

const DAY_MS = 86_400_000;

/**
 * Why a retention is too short for a connector's longest quarantine hold, or undefined.
 *
 * @example
 * retentionTooShort(10, 720); // 'shorter than ... 720 h ... plus 7 days'
 */
export function retentionTooShort(retentionDays: number, maxHoldHours: number): string | undefined {
  const neededDays = maxHoldHours / 24 + WRITE_INTENT_RETENTION.marginDays;
  if (retentionDays >= neededDays) return undefined;
  return (
    `${retentionDays} days is shorter than the ${maxHoldHours} h a request may be held ` +
    `(quarantine.maxHoldHours) plus ${WRITE_INTENT_RETENTION.marginDays} days: a request held ` +
    `that long would run a write again without its intent; at least ${Math.ceil(neededDays)}`
  );
}

/**
 * The first day (`YYYY-MM-DD`, UTC) whose intents are kept: a day before it ended
 * `retentionDays` ago or earlier, so every request received on it is older than that.
 *
 * @example
 * firstKeptDay(Date.parse('2026-11-24T03:00:00Z'), 45); // '2026-10-10'
 */
export function firstKeptDay(nowMs: number, retentionDays: number): string {
  return new Date(nowMs - retentionDays * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The day of a time, as a request's intents are kept under it (`YYYY-MM-DD`, UTC).
 *
 * @example
 * intentDayOf('2026-11-24T23:59:59.999Z'); // '2026-11-24'
 */
export function intentDayOf(isoTime: string): string {
  return new Date(isoTime).toISOString().slice(0, 10);
}
