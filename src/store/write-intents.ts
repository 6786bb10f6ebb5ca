/**
 * Intents of writes, recorded before the write is sent (DESIGN invariant 1): a second run
 * of the same write (Durable runs activities at least once; a lost answer makes it retry)
 * finds the first run's intent and so knows that an "already in place" may be its own
 * change, which the journal must still record.
 */
export interface WriteIntentStore {
  /** Records the intent; true when it was recorded before (an earlier run of this write). */
  claim(key: string): Promise<boolean>;
}
