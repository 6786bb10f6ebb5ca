import type { TableClient } from '@azure/data-tables';
import { accountRowKeys, type AccountRow } from './account-row';
import { storageFailure, storageStatus } from './storage-failure';

/** Maps an account ID to the key its row is kept under (the connector's canonical form). */
export type AccountKeyOf = (connector: string, accountId: string) => string;

export type RowKeys = { partitionKey: string; rowKey: string };

/** A row as read, with its version. */
export interface CurrentRow {
  row: AccountRow;
  etag: string;
}

/*
 * Each round either takes the lease or learns who holds it; a round only repeats when the
 * row changed between two calls, so a few rounds are plenty.
 */
export const MAX_ROUNDS = 5;

/**
 * The account rows of the journal's table (account-row.ts): under which keys an account's
 * row is kept, reading it with its version, and writing it only at a version.
 *
 * @example
 * const rows = new AccountRows(client, (_connector, accountId) => accountId.toLowerCase());
 * const current = await rows.read(rows.keysOf('hr', 'Ada'));
 */
export class AccountRows {
  /**
   * `accountKey`: the connector's canonical form of an account ID (`Connector.accountKey`):
   * the row of an account is kept under it, so IDs the target takes for one account share
   * one lease and one record.
   */
  constructor(
    readonly client: TableClient,
    readonly accountKey: AccountKeyOf,
  ) {}

  /**
   * The keys of the row a request's lease and record are on: the canonical key, unless only
   * a row under the ID as given exists (a request that took its lease before rows were keyed
   * canonically, still running: its commits and its release go where its lease is; the next
   * lease taken moves the row). Asked only off the usual path: once a write or a read under
   * the canonical key missed, or a commit has no version of the row to write to; for an ID
   * already in canonical form, without a read.
   */
  async heldRowKeys(connector: string, accountId: string): Promise<RowKeys> {
    const keys = this.keysOf(connector, accountId);
    const legacy = this.legacyKeysOf(connector, accountId);
    if (legacy === undefined) return keys;
    if ((await this.read(keys)) !== undefined) return keys;
    return (await this.read(legacy)) === undefined ? keys : legacy;
  }

  /** The keys of the account's row: under the connector's canonical form of the ID. */
  keysOf(connector: string, accountId: string): RowKeys {
    return accountRowKeys(connector, this.accountKey(connector, accountId));
  }

  /**
   * Where a row written before rows were keyed canonically lies: under the ID itself, when
   * that differs from its canonical form (undefined when it does not: the row is there).
   */
  legacyKeysOf(connector: string, accountId: string): RowKeys | undefined {
    const raw = accountRowKeys(connector, accountId);
    return raw.rowKey === this.keysOf(connector, accountId).rowKey ? undefined : raw;
  }

  /** The row and its version; undefined when there is none. */
  async read(keys: RowKeys): Promise<CurrentRow | undefined> {
    try {
      const row = await this.client.getEntity<AccountRow>(keys.partitionKey, keys.rowKey);
      return { row, etag: row.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read an account row', error);
    }
  }

  /** Runs a conditional write: its ETag when it applied, false when it lost on `conflictStatus`. */
  async attempt(
    operation: string,
    conflictStatus: number,
    write: () => Promise<{ etag?: string }>,
  ): Promise<{ etag: string | undefined } | false> {
    try {
      const response = await write();
      return { etag: response.etag };
    } catch (error) {
      if (storageStatus(error) === conflictStatus) return false;
      throw storageFailure(operation, error);
    }
  }
}
