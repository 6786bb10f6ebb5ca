/**
 * Intents of writes, recorded before the write is sent (DESIGN invariant 1): a second run
 * of the same write (Durable runs activities at least once; a lost answer makes it retry)
 * finds the first run's intent and so knows that an "already in place" may be its own
 * change, which the journal must still record.
 */
export interface WriteIntentStore {
  /**
   * Records the intent; true when it was recorded before (an earlier run of this write).
   * `day`: the UTC day (`YYYY-MM-DD`) the request was received, under which its intents are
   * kept and purged; absent for a request accepted before intents were kept by day.
   */
  claim(key: string, day?: string): Promise<boolean>;
  /**
   * Withdraws an intent this run claimed, its write refused or never sent: a later run of
   * the write claims it anew. An intent already gone is no error.
   */
  withdraw(key: string, day?: string): Promise<void>;
  /**
   * Deletes the intents of requests received before `beforeDay` (`YYYY-MM-DD`), and those
   * kept without a day that were last written before it. Answers how many were deleted.
   */
  purge(beforeDay: string): Promise<number>;
}
