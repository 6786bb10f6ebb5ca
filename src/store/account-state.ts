import type { AccountRecord, AccountRecordUpdate } from '../domain/account-record';
import type { JournalEntry } from '../domain/journal-entry';
import type { Lease } from './account-row';

/** The answer to a lease request. */
export interface LeaseResult {
  acquired: boolean;
  /** The current holder when not acquired. */
  holder?: string;
  /** ISO time the current lease ends. */
  expiresAt?: string;
  /** The row's version when acquired: the next write under the lease takes one call with it. */
  etag?: string;
  /**
   * When acquired: the service's record of the account as stored (null: none), read with the
   * lease so that no step reads it again.
   */
  record?: AccountRecord | null;
}

/**
 * One step's effective changes and what the record learns (with those of the steps before
 * it whose commits it carries), written under the request's lease.
 */
export interface StepCommit {
  connector: string;
  accountId: string;
  /** The lease holder (the orchestration's instance id) and when its lease ends (ms). */
  owner: string;
  leaseExpiresAtMs: number;
  /** The row's version as the holder last wrote it (from the lease or the last commit). */
  etag?: string;
  /** The entries of each step the commit writes, each stamped with its own step's end. */
  entries: readonly JournalEntry[];
  update?: AccountRecordUpdate;
  /** The updates of earlier steps the commit carries, in order: applied before `update`. */
  earlier?: readonly AccountRecordUpdate[];
  /**
   * The step each of `earlier` belongs to, in the same order, and the step of `update`: a
   * commit run again in parts skips the updates of steps its run before finished. Absent
   * (commits scheduled before they were named): every update is applied.
   */
  earlierSteps?: readonly number[];
  step?: number;
  /** The record as stored now (the holder is its only writer): the commit needs no read. */
  stored?: AccountRecord | null;
  /** Release the lease in the same write: nothing of the request follows. */
  release: boolean;
}

/** What a commit leaves: the record as stored and the row's new version. */
export interface CommittedStep {
  record: AccountRecord | null;
  /** Absent when the lease was released (or the row is gone). */
  etag?: string;
}

/**
 * The service's own state of each account on a connector (DESIGN: src/store): the record
 * (link to the target's object, what the service last wrote) and the lease that gives one
 * request at a time the right to write the account (DESIGN invariant 7). Both live in one
 * row beside the account's journal entries, so that a step's entries, its record update and
 * the lease are written in one transaction.
 */
export interface AccountStateStore {
  /**
   * Takes the lease when it is free, expired or already `owner`'s (then it is renewed), and
   * answers the record with it. Times come from the caller (the orchestration's clock).
   * `likelyNew`: the request creates the account, so the row is probably absent: try the
   * insert first (one call).
   */
  acquire(
    connector: string,
    accountId: string,
    owner: string,
    nowMs: number,
    ttlMs: number,
    likelyNew?: boolean,
  ): Promise<LeaseResult>;
  /**
   * Releases the lease if `owner` holds it; otherwise does nothing. With the row's version
   * and the record as the holder last wrote them, one call.
   */
  release(
    connector: string,
    accountId: string,
    owner: string,
    known?: { etag: string; stored: AccountRecord | null },
  ): Promise<void>;
  /**
   * A step's journal entries and its record update, atomically, and the lease released with
   * them when asked. Idempotent: the same commit run again (Durable runs activities at least
   * once), even with its entries stamped with a later time (an episode run again), writes no
   * entry twice and applies its update once.
   */
  commitStep(commit: StepCommit): Promise<CommittedStep>;
  /** The record (a deleted account's tombstone included); undefined when there is none. */
  get(connector: string, accountId: string): Promise<AccountRecord | undefined>;
  /**
   * The record and the lease on its row, in the one read `get` makes: a held lease is a
   * request (or a restore) writing the account, whether or not the request list shows it.
   */
  read(
    connector: string,
    accountId: string,
  ): Promise<{ record: AccountRecord | undefined; lease: Lease | undefined }>;
  /**
   * Every account the service links on the connector (records of accounts it deleted left
   * out), page by page: what reconciliation compares the target with.
   */
  listLinked(connector: string): AsyncIterable<AccountRecord>;
  /** Writes a record as it is, keeping the row's lease (seeding a store for a benchmark). */
  put(record: AccountRecord): Promise<void>;
}
