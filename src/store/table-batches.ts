import type { TableClient, TableEntity, TransactionAction, UpdateMode } from '@azure/data-tables';
import { submitTransaction } from './table-transaction';

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
