import type { JournalEntry } from '../domain/journal-entry';

export interface JournalQuery {
  connector?: string;
  /**
   * The account, in any spelling its connector takes for it: entries whose account has the
   * same key (account-keys.ts), and entries written before rows carried the key under this
   * exact spelling.
   */
  accountId?: string;
  requestId?: string;
  /** The governance workflow's case id the requests carried (exact). */
  correlationId?: string;
  /** Who asked, as the requests named them (exact). */
  requestedBy?: string;
  /** ISO time, inclusive. */
  from?: string;
  /** ISO time, exclusive. */
  to?: string;
  /**
   * Entries recorded (written to the table) at or after this ISO time: a client that pages
   * by time passes the `recordedTo` of its last answer, and misses nothing written since,
   * however long after its own `at` (a commit carried into the next step's).
   */
  recordedFrom?: string;
  /**
   * Entries recorded before this ISO time (exclusive), at most the store's horizon (now less
   * the time a write may take to show): the answer's `recordedTo`. Required with a
   * `continuationToken` when `recordedFrom` is given, so that every page has one horizon.
   */
  recordedTo?: string;
  /** Page size, 1-1000 (default 100). */
  limit?: number;
  /** From a previous page's answer. */
  continuationToken?: string;
}

/** An entry as read: with the time the table recorded it (its row's last write). */
export type RecordedJournalEntry = JournalEntry & { recordedAt: string };

export interface JournalPage {
  /** Ordered by connector, then time. */
  entries: RecordedJournalEntry[];
  continuationToken?: string;
  /**
   * With `recordedFrom` or `recordedTo`: every entry the filter matches that was recorded
   * before this time is in this query's pages; the next query starts here (`recordedFrom`).
   */
  recordedTo?: string;
}

/** The change journal (DESIGN: src/store): only effective changes, each written once. */
export interface JournalStore {
  /** Upserts by `key`: recording the same entries again changes nothing. */
  record(entries: readonly JournalEntry[]): Promise<void>;
  query(query: JournalQuery): Promise<JournalPage>;
  /** The latest `recordedTo` a query may have now: entries recorded before it all show. */
  recordedHorizon(): string;
  /**
   * The horizon a query by record time pages under (`recordedTo` in its answer): the one
   * asked for, never later than {@link JournalStore.recordedHorizon}; undefined for a query
   * not by record time.
   */
  recordedToOf(query: JournalQuery): string | undefined;
  /**
   * Deletes the markers of the connector's step commits stamped before `beforeDay`
   * (`YYYY-MM-DD`, UTC): see `purgeStepMarkers`. Answers how many.
   */
  purgeStepMarkers(connector: string, beforeDay: string): Promise<number>;
}
