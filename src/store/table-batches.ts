import type { TableClient, TableEntity, TransactionAction, UpdateMode } from '@azure/data-tables';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { submitTransaction, type TableAction } from './table-transaction';

/** Azure Table Storage: at most 100 operations per entity group transaction, one partition each. */
const MAX_BATCH = 100;

/**
 * Upserts entities in entity group transactions: grouped by partition, 100 per batch. A
 * transaction may not name one entity twice, so a later entity with the same keys
 * replaces an earlier one. Batches run one after another; each is atomic, the whole set is
 * not (a retry of the caller upserts the same rows again, which is harmless).
 *
 * @example
 * await upsertInBatches(client, rows, 'Replace');
 */
export async function upsertInBatches(
  client: TableClient,
  entities: readonly TableEntity<object>[],
  mode: UpdateMode,
): Promise<void> {
  const partitions = new Map<string, Map<string, TableEntity<object>>>();
  for (const entity of entities) {
    let rows = partitions.get(entity.partitionKey);
    if (rows === undefined) {
      rows = new Map();
      partitions.set(entity.partitionKey, rows);
    }
    rows.set(entity.rowKey, entity);
  }
  for (const rows of partitions.values()) {
    const all = [...rows.values()];
    if (all.length === 1) {
      // One row needs no transaction (a plain upsert is one lighter call).
      await client.upsertEntity(all[0]!, mode);
      continue;
    }
    for (let start = 0; start < all.length; start += MAX_BATCH) {
      const actions: TransactionAction[] = all
        .slice(start, start + MAX_BATCH)
        .map((entity) => ['upsert', entity, mode]);
      await submitTransaction(client, actions);
    }
  }
}

/**
 * Deletes rows in transactions of one partition each, 100 per batch. A row gone already (a
 * purge that ran at the same time) fails its transaction: the rows are then deleted one by
 * one. `what` names them in a storage failure ("purge write intents"). Answers how many
 * rows it was given.
 */
export async function deleteInBatches(
  client: TableClient,
  rows: readonly { partitionKey: string; rowKey: string }[],
  what: string,
): Promise<number> {
  const byPartition = new Map<string, { partitionKey: string; rowKey: string }[]>();
  for (const row of rows) {
    byPartition.set(row.partitionKey, [...(byPartition.get(row.partitionKey) ?? []), row]);
  }
  for (const partition of byPartition.values()) {
    for (let start = 0; start < partition.length; start += MAX_BATCH) {
      const part = partition.slice(start, start + MAX_BATCH);
      const actions: TableAction[] = part.map((row) => ['delete', row]);
      try {
        await submitTransaction(client, actions);
        continue;
      } catch (error) {
        if (storageStatus(error) !== 404) throw storageFailure(what, error);
      }
      for (const row of part) {
        await guardStorage(what, async () => {
          try {
            await client.deleteEntity(row.partitionKey, row.rowKey);
          } catch (error) {
            if (storageStatus(error) !== 404) throw error;
          }
        });
      }
    }
  }
  return rows.length;
}
