import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import { applyRecordUpdate, isLinked, type AccountRecord } from '../domain/account-record';
import {
  ACCOUNT_ROW_PREFIX,
  accountIdOfRow,
  accountRowKeys,
  leaseOfRow,
  recordOfRow,
  toAccountRow,
  type AccountRow,
  type Lease,
} from './account-row';
import type { AccountStateStore, CommittedStep, LeaseResult, StepCommit } from './account-state';
import { fits, tooLarge } from './account-row-size';
import { EnsuredTable } from './ensured-table';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';
import { upsertInBatches } from './table-batches';
import { journalRowsOf } from './table-journal-store';
import { submitTransaction } from './table-transaction';

/** Maps an account ID to the key its row is kept under (the connector's canonical form). */
export type AccountKeyOf = (connector: string, accountId: string) => string;

type RowKeys = { partitionKey: string; rowKey: string };

interface CurrentRow {
  row: AccountRow;
  etag: string;
}

/*
 * Each round either takes the lease or learns who holds it; a round only repeats when the
 * row changed between two calls, so a few rounds are plenty.
 */
const MAX_ROUNDS = 5;
/** The first RowKey after every account row's (`~account~` with its last character + 1). */
const ROW_PREFIX_END = `${ACCOUNT_ROW_PREFIX.slice(0, -1)}${String.fromCharCode(ACCOUNT_ROW_PREFIX.charCodeAt(ACCOUNT_ROW_PREFIX.length - 1) + 1)}`;
/** Table Storage: at most 100 operations per transaction; one is the account's row. */
const ENTRIES_WITH_ROW = 99;

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
    const client = await this.table.client();
    const keys = this.keysOf(connector, accountId);
    const legacy = this.legacyKeysOf(connector, accountId);
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
      this.attempt('take an account lease', 409, () =>
        client.createEntity({ ...keys, ...toAccountRow(null, lease) }),
      );
    if (likelyNew && legacy === undefined) {
      const created = await insert();
      if (created !== false) return taken(created.etag, null);
    }
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await this.read(client, keys);
      if (current === undefined) {
        const old = legacy === undefined ? undefined : await this.read(client, legacy);
        if (old !== undefined && legacy !== undefined) {
          const held = leaseOfRow(old.row);
          if (held !== undefined && held.owner !== owner && held.expiresAtMs > nowMs) {
            return { acquired: false, holder: held.owner, expiresAt: held.expiresAt };
          }
          const moved = await this.moveUnder(
            client,
            legacy,
            old,
            keys,
            connector,
            accountId,
            lease,
          );
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
      const replaced = await this.attempt('take an account lease', 412, () =>
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
    const client = await this.table.client();
    let keys = this.keysOf(connector, accountId);
    let version = known;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      if (version === undefined) {
        const current = await this.read(client, keys);
        if (current === undefined) {
          // The lease may be on the row under the ID as given (taken before rows were keyed
          // canonically).
          const held = await this.heldRowKeys(client, connector, accountId);
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
          const held = await this.heldRowKeys(client, connector, accountId);
          if (held.rowKey === keys.rowKey) return;
          keys = held;
        } else if (status !== 412) throw storageFailure('release an account lease', error);
        version = undefined;
      }
    }
  }

  async commitStep(commit: StepCommit): Promise<CommittedStep> {
    const client = await this.table.client();
    const { connector, accountId } = commit;
    const keys = this.keysOf(connector, accountId);
    const rows = journalRowsOf(commit.entries);
    // Entries beyond one transaction go first, on their own (upserts: a retry repeats them harmlessly).
    const early = rows.slice(0, Math.max(0, rows.length - ENTRIES_WITH_ROW));
    if (early.length > 0) {
      await guardStorage('record journal entries', () => upsertInBatches(client, early, 'Replace'));
    }
    const late = rows.slice(early.length);
    if (commit.etag !== undefined && commit.stored !== undefined) {
      const next = this.nextRow(commit, commit.stored);
      const update = next.action(keys, commit.etag);
      if (!fits(update[1])) {
        // The row cannot be written: the entries must not fall with it.
        if (late.length > 0) {
          await guardStorage('record journal entries', () =>
            upsertInBatches(client, late, 'Replace'),
          );
        }
        throw tooLarge(commit, update[1]);
      }
      const actions: TransactionAction[] = [
        ...late.map((row): TransactionAction => ['upsert', row, 'Replace']),
        update,
      ];
      try {
        const response = await submitTransaction(client, actions);
        // Sub-responses come in the order of the actions (Azurite names no row in them).
        const etag = response.subResponses.at(-1)?.etag;
        return {
          record: next.record,
          ...(next.released || etag === undefined ? {} : { etag }),
        };
      } catch (error) {
        // 412: the row changed since (the lease expired and was taken); 404: no row under
        // the canonical key (a lease taken before rows were keyed canonically). The entries
        // are still written, and the update applied to the record as it is now.
        const status = storageStatus(error);
        if (status !== 412 && status !== 404) throw storageFailure('record a step', error);
      }
    }
    if (late.length > 0) {
      await guardStorage('record journal entries', () => upsertInBatches(client, late, 'Replace'));
    }
    return this.commitToCurrent(client, commit);
  }

  async get(connector: string, accountId: string): Promise<AccountRecord | undefined> {
    const client = await this.table.client();
    const legacy = this.legacyKeysOf(connector, accountId);
    const current =
      (await this.read(client, this.keysOf(connector, accountId))) ??
      (legacy === undefined ? undefined : await this.read(client, legacy));
    if (current === undefined) return undefined;
    return recordOfRow(connector, accountId, current.row) ?? undefined;
  }

  async *listLinked(connector: string): AsyncGenerator<AccountRecord> {
    const client = await this.table.client();
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
    const client = await this.table.client();
    const keys = this.keysOf(record.connector, record.accountId);
    await guardStorage('write an account record', () =>
      client.upsertEntity({ ...keys, ...toAccountRow(record, undefined) }, 'Merge'),
    );
  }

  /** The row after a commit, and the transaction action that writes it under `etag`. */
  private nextRow(commit: StepCommit, stored: AccountRecord | null) {
    const record = recordAfter(commit, stored);
    const released = commit.release;
    return {
      record,
      released,
      // A transaction cannot delete under an ETag: a row left without record or lease stays.
      action: (keys: { partitionKey: string; rowKey: string }, etag: string): TransactionAction => [
        'update',
        { ...keys, ...toAccountRow(record, released ? undefined : leaseOf(commit)) },
        'Replace',
        { etag },
      ],
    };
  }

  /**
   * The commit without a known version: the record read, updated and written back under its
   * ETag, keeping whatever lease the row holds (another request's included) unless it is
   * this owner's and the commit releases it.
   */
  private async commitToCurrent(client: TableClient, commit: StepCommit): Promise<CommittedStep> {
    const { connector, accountId } = commit;
    const keys = await this.heldRowKeys(client, connector, accountId);
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await this.read(client, keys);
      const stored = current === undefined ? null : recordOfRow(connector, accountId, current.row);
      const record = recordAfter(commit, stored);
      const held = current === undefined ? undefined : leaseOfRow(current.row);
      const lease = held?.owner === commit.owner && commit.release ? undefined : held;
      if (current === undefined) {
        if (record === null) return { record: null };
        const entity = { ...keys, ...toAccountRow(record, undefined) };
        // The journal entries are written already (commitStep): only the record is refused.
        if (!fits(entity)) throw tooLarge(commit, entity);
        const created = await this.attempt('record a step', 409, () => client.createEntity(entity));
        if (created !== false) return { record };
        continue;
      }
      const entity = { ...keys, ...toAccountRow(record, lease) };
      if (!fits(entity)) throw tooLarge(commit, entity);
      const written = await this.attempt('record a step', 412, () =>
        client.updateEntity(entity, 'Replace', { etag: current.etag }),
      );
      if (written === false) continue;
      const ours = lease?.owner === commit.owner;
      return { record, ...(ours && written.etag !== undefined ? { etag: written.etag } : {}) };
    }
    throw storageFailure('record a step', { statusCode: 412 });
  }

  /**
   * The keys of the row a request's lease and record are on: the canonical key, unless only
   * a row under the ID as given exists (a request that took its lease before rows were keyed
   * canonically, still running: its commits and its release go where its lease is; the next
   * lease taken moves the row). Asked only off the usual path: once a write or a read under
   * the canonical key missed, or a commit has no version of the row to write to; for an ID
   * already in canonical form, without a read.
   */
  private async heldRowKeys(
    client: TableClient,
    connector: string,
    accountId: string,
  ): Promise<RowKeys> {
    const keys = this.keysOf(connector, accountId);
    const legacy = this.legacyKeysOf(connector, accountId);
    if (legacy === undefined) return keys;
    if ((await this.read(client, keys)) !== undefined) return keys;
    return (await this.read(client, legacy)) === undefined ? keys : legacy;
  }

  /** The keys of the account's row: under the connector's canonical form of the ID. */
  private keysOf(connector: string, accountId: string): RowKeys {
    return accountRowKeys(connector, this.accountKey(connector, accountId));
  }

  /**
   * Where a row written before rows were keyed canonically lies: under the ID itself, when
   * that differs from its canonical form (undefined when it does not: the row is there).
   */
  private legacyKeysOf(connector: string, accountId: string): RowKeys | undefined {
    const raw = accountRowKeys(connector, accountId);
    return raw.rowKey === this.keysOf(connector, accountId).rowKey ? undefined : raw;
  }

  /**
   * Moves a row written under the raw ID to the canonical key, with the lease taken: the
   * canonical row is created with its record (409: someone moved or created it first, the
   * caller reads again), then the old row is deleted under its version (412 or 404: it was
   * changed or removed since, by someone who holds no canonical lease; it is left).
   */
  private async moveUnder(
    client: TableClient,
    legacy: RowKeys,
    old: CurrentRow,
    keys: RowKeys,
    connector: string,
    accountId: string,
    lease: Lease,
  ): Promise<{ etag: string | undefined; record: AccountRecord | null } | false> {
    const record = recordOfRow(connector, accountId, old.row);
    const created = await this.attempt('take an account lease', 409, () =>
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

  private async read(
    client: TableClient,
    keys: { partitionKey: string; rowKey: string },
  ): Promise<CurrentRow | undefined> {
    try {
      const row = await client.getEntity<AccountRow>(keys.partitionKey, keys.rowKey);
      return { row, etag: row.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read an account row', error);
    }
  }

  /** Runs a conditional write: its ETag when it applied, false when it lost on `conflictStatus`. */
  private async attempt(
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

/** The lease a commit keeps when it does not release it. */
function leaseOf(commit: StepCommit): Lease {
  return {
    owner: commit.owner,
    expiresAtMs: commit.leaseExpiresAtMs,
    expiresAt: new Date(commit.leaseExpiresAtMs).toISOString(),
  };
}

/** The record once the commit's update is applied to it (null: none). */
function recordAfter(commit: StepCommit, stored: AccountRecord | null): AccountRecord | null {
  if (commit.update === undefined) return stored;
  return (
    applyRecordUpdate(stored ?? undefined, commit.connector, commit.accountId, commit.update) ??
    null
  );
}
