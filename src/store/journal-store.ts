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
  /** Page size, 1-1000 (default 100). */
  limit?: number;
  /** From a previous page's answer. */
  continuationToken?: string;
}

export interface JournalPage {
  /** Ordered by connector, then time. */
  entries: JournalEntry[];
  continuationToken?: string;
}

/** The change journal (DESIGN: src/store): only effective changes, each written once. */
export interface JournalStore {
  /** Upserts by `key`: recording the same entries again changes nothing. */
  record(entries: readonly JournalEntry[]): Promise<void>;
  query(query: JournalQuery): Promise<JournalPage>;
  /**
   * Deletes the markers of the connector's step commits stamped before `beforeDay`
   * (`YYYY-MM-DD`, UTC): see `purgeStepMarkers`. Answers how many.
   */
  purgeStepMarkers(connector: string, beforeDay: string): Promise<number>;
}
