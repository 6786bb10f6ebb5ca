import { odata, type TableClient } from '@azure/data-tables';
import { isLinked, type AccountRecord } from '../domain/account-record';
import {
  ACCOUNT_ROW_PREFIX,
  accountIdOfRow,
  leaseOfRow,
  recordOfRow,
  toAccountRow,
  type AccountRow,
  type Lease,
} from './account-row';
import {
  AccountRows,
  MAX_ROUNDS,
  type AccountKeyOf,
  type CurrentRow,
  type RowKeys,
} from './account-rows';
import type { AccountStateStore, CommittedStep, LeaseResult, StepCommit } from './account-state';
import { EnsuredTable } from './ensured-table';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';
import { insertRow } from './table-row-insert';
import { commitStepToRows } from './table-step-commit';

export type { AccountKeyOf };

/** The first RowKey after every account row's (`~account~` with its last character + 1). */
const ROW_PREFIX_END = `${ACCOUNT_ROW_PREFIX.slice(0, -1)}${String.fromCharCode(ACCOUNT_ROW_PREFIX.charCodeAt(ACCOUNT_ROW_PREFIX.length - 1) + 1)}`;

/**
 * Account rows in the journal's table (DESIGN invariant 7 and 1): PartitionKey is the
 * connector, as for the journal entries, so that a step's entries, its record and the lease
 * are one entity group transaction. Taking a lease is optimistic: insert the row when there
 * is none (409: someone else inserted first), else replace it under its ETag when the lease
 * is free, expired or ours (412: someone else wrote first). Exactly one of any number of
 * concurrent callers wins; the record in the row is kept as it is.
 */
export class TableAccountState implements AccountStateStore {
  private readonly table: EnsuredTable;

  /**
   * `accountKey`: the connector's canonical form of an account ID (`Connector.accountKey`):
   * the row of an account is kept under it, so IDs the target takes for one account share
   * one lease and one record. Default: the ID as it is.
   */
  constructor(
    client: TableClient,
    private readonly accountKey: AccountKeyOf = (_connector, accountId) => accountId,
  ) {
    this.table = new EnsuredTable(client);
  }

  async acquire(
    connector: string,
    accountId: string,
    owner: string,
    nowMs: number,
    ttlMs: number,
    likelyNew = false,
  ): Promise<LeaseResult> {
    const rows = await this.rows();
    const { client } = rows;
    const keys = rows.keysOf(connector, accountId);
    const legacy = rows.legacyKeysOf(connector, accountId);
    const lease: Lease = {
      owner,
      expiresAtMs: nowMs + ttlMs,
      expiresAt: new Date(nowMs + ttlMs).toISOString(),
    };
    const taken = (etag: string | undefined, record: AccountRecord | null): LeaseResult => ({
      acquired: true,
      expiresAt: lease.expiresAt,
      record,
      ...(etag === undefined ? {} : { etag }),
    });
    const insert = () =>
      rows.attempt('take an account lease', 409, () =>
        insertRow(client, { ...keys, ...toAccountRow(null, lease) }),
      );
    if (likelyNew && legacy === undefined) {
      const created = await insert();
      if (created !== false) return taken(created.etag, null);
    }
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await rows.read(keys);
      if (current === undefined) {
        const old = legacy === undefined ? undefined : await rows.read(legacy);
        if (old !== undefined && legacy !== undefined) {
          const held = leaseOfRow(old.row);
          if (held !== undefined && held.owner !== owner && held.expiresAtMs > nowMs) {
            return { acquired: false, holder: held.owner, expiresAt: held.expiresAt };
          }
          const moved = await this.moveUnder(rows, legacy, old, keys, connector, accountId, lease);
          if (moved !== false) return taken(moved.etag, moved.record);
          continue;
        }
        const created = await insert();
        if (created !== false) return taken(created.etag, null);
        continue;
      }
      const record = recordOfRow(connector, accountId, current.row);
      const held = leaseOfRow(current.row);
      if (held !== undefined && held.owner !== owner && held.expiresAtMs > nowMs) {
        return { acquired: false, holder: held.owner, expiresAt: held.expiresAt };
      }
      const replaced = await rows.attempt('take an account lease', 412, () =>
        client.updateEntity({ ...keys, ...toAccountRow(record, lease) }, 'Replace', {
          etag: current.etag,
        }),
      );
      if (replaced !== false) return taken(replaced.etag, record);
    }
    return { acquired: false };
  }

  async release(
    connector: string,
    accountId: string,
    owner: string,
    known?: { etag: string; stored: AccountRecord | null },
  ): Promise<void> {
    const rows = await this.rows();
    const { client } = rows;
    let keys = rows.keysOf(connector, accountId);
    let version = known;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      if (version === undefined) {
        const current = await rows.read(keys);
        if (current === undefined) {
          // The lease may be on the row under the ID as given (taken before rows were keyed
          // canonically).
          const held = await rows.heldRowKeys(connector, accountId);
          if (held.rowKey === keys.rowKey) return;
          keys = held;
          continue;
        }
        if (leaseOfRow(current.row)?.owner !== owner) return;
        version = {
          etag: current.etag,
          stored: recordOfRow(connector, accountId, current.row),
        };
      }
      const { etag, stored } = version;
      try {
        // A row without a record was made for the lease alone: it goes with it.
        if (stored === null) await client.deleteEntity(keys.partitionKey, keys.rowKey, { etag });
        else {
          await client.updateEntity({ ...keys, ...toAccountRow(stored, undefined) }, 'Replace', {
            etag,
          });
        }
        return;
      } catch (error) {
        const status = storageStatus(error);
        if (status === 404) {
          // No row under the canonical key: the lease may be on the row under the ID as
          // given, taken before rows were keyed canonically.
          const held = await rows.heldRowKeys(connector, accountId);
          if (held.rowKey === keys.rowKey) return;
          keys = held;
        } else if (status !== 412) throw storageFailure('release an account lease', error);
        version = undefined;
      }
    }
  }

  async commitStep(commit: StepCommit): Promise<CommittedStep> {
    const { connector, accountId, owner } = commit;
    return commitStepToRows(await this.rows(), commit, () =>
      this.release(connector, accountId, owner),
    );
  }

  async get(connector: string, accountId: string): Promise<AccountRecord | undefined> {
    return (await this.read(connector, accountId)).record;
  }

  async read(
    connector: string,
    accountId: string,
  ): Promise<{ record: AccountRecord | undefined; lease: Lease | undefined }> {
    const rows = await this.rows();
    const legacy = rows.legacyKeysOf(connector, accountId);
    const current =
      (await rows.read(rows.keysOf(connector, accountId))) ??
      (legacy === undefined ? undefined : await rows.read(legacy));
    if (current === undefined) return { record: undefined, lease: undefined };
    return {
      record: recordOfRow(connector, accountId, current.row) ?? undefined,
      lease: leaseOfRow(current.row),
    };
  }

  async *listLinked(connector: string): AsyncGenerator<AccountRecord> {
    const rows = await this.rows();
    const { client } = rows;
    const partition = encodeTableKey(connector);
    // The account rows alone, not the journal entries beside them ('~' + 1 ends the prefix).
    const pages = client
      .listEntities<AccountRow>({
        queryOptions: {
          filter: odata`PartitionKey eq ${partition} and RowKey ge ${ACCOUNT_ROW_PREFIX} and RowKey lt ${ROW_PREFIX_END}`,
        },
      })
      .byPage({ maxPageSize: 1000 });
    for (;;) {
      const page = await guardStorage('list the account records', async () => {
        const next = await pages.next();
        return next.done === true ? undefined : next.value;
      });
      if (page === undefined) return;
      for (const row of page) {
        const record = recordOfRow(connector, accountIdOfRow(row.rowKey ?? ''), row);
        if (record !== null && isLinked(record)) yield record;
      }
    }
  }

  async put(record: AccountRecord): Promise<void> {
    const rows = await this.rows();
    const { client } = rows;
    const keys = rows.keysOf(record.connector, record.accountId);
    await guardStorage('write an account record', () =>
      client.upsertEntity({ ...keys, ...toAccountRow(record, undefined) }, 'Merge'),
    );
  }

  /**
   * Moves a row written under the raw ID to the canonical key, with the lease taken: the
   * canonical row is created with its record (409: someone moved or created it first, the
   * caller reads again), then the old row is deleted under its version (412 or 404: it was
   * changed or removed since, by someone who holds no canonical lease; it is left).
   */
  private async moveUnder(
    rows: AccountRows,
    legacy: RowKeys,
    old: CurrentRow,
    keys: RowKeys,
    connector: string,
    accountId: string,
    lease: Lease,
  ): Promise<{ etag: string | undefined; record: AccountRecord | null } | false> {
    const { client } = rows;
    const record = recordOfRow(connector, accountId, old.row);
    const created = await rows.attempt('take an account lease', 409, () =>
      client.createEntity({ ...keys, ...toAccountRow(record, lease) }),
    );
    if (created === false) return false;
    try {
      await client.deleteEntity(legacy.partitionKey, legacy.rowKey, { etag: old.etag });
    } catch (error) {
      const status = storageStatus(error);
      if (status !== 404 && status !== 412) throw storageFailure('move an account row', error);
    }
    return { etag: created.etag, record };
  }

  private async rows(): Promise<AccountRows> {
    return new AccountRows(await this.table.client(), this.accountKey);
  }
}
