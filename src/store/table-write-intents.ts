import { odata, type TableClient } from '@azure/data-tables';
import { EnsuredTable } from './ensured-table';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { deleteInBatches } from './table-batches';
import { insertRow } from './table-row-insert';
import type { WriteIntentStore } from './write-intents';

/**
 * Partitions of intents kept by the day of their request: `on-<YYYY-MM-DD>~<xx>`, `xx` the
 * key's first two characters (to spread a day's rows). They sort after every partition of
 * the intents kept before (the key's first two hex digits alone), so each kind is one range.
 */
const DAY = 'on-';
/** Past the last partition of the intents kept before days: `f` is the last hex digit. */
const AFTER_UNDATED = 'g';

/**
 * Write intents in Table Storage: one row per intent key, created with "insert, fail if it
 * exists", in the partition of its request's day, so that a day's intents are deleted
 * together once no request of that day can still retry a write (`purge`). A claim without
 * a day (a request accepted before intents were kept by day) stays where such claims were
 * made: in the partition of the key's first two characters.
 */
export class TableWriteIntents implements WriteIntentStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async claim(key: string, day?: string): Promise<boolean> {
    const client = await this.table.client();
    const partitionKey = partitionOf(key, day);
    try {
      await insertRow(client, { partitionKey, rowKey: key });
      return false;
    } catch (error) {
      if (storageStatus(error) === 409) return true;
      throw storageFailure('record a write intent', error);
    }
  }

  async withdraw(key: string, day?: string): Promise<void> {
    const client = await this.table.client();
    try {
      await client.deleteEntity(partitionOf(key, day), key);
    } catch (error) {
      if (storageStatus(error) !== 404) throw storageFailure('withdraw a write intent', error);
    }
  }

  async purge(beforeDay: string): Promise<number> {
    const client = await this.table.client();
    const dated = odata`PartitionKey ge ${DAY} and PartitionKey lt ${`${DAY}${beforeDay}`}`;
    // Intents kept before days: those last written before that day began.
    const since = new Date(`${beforeDay}T00:00:00Z`);
    const undated = odata`PartitionKey lt ${AFTER_UNDATED} and Timestamp lt ${since}`;
    let deleted = 0;
    for (const filter of [dated, undated]) {
      // Page by page: the first purge after an upgrade may meet a table grown for years.
      const pages = client
        .listEntities({ queryOptions: { filter, select: ['PartitionKey', 'RowKey'] } })
        .byPage({ maxPageSize: 1000 });
      for (;;) {
        const page = await guardStorage('list write intents to purge', () => pages.next());
        if (page.done === true) break;
        const rows = page.value.map((row) => ({
          partitionKey: row.partitionKey ?? '',
          rowKey: row.rowKey ?? '',
        }));
        deleted += await deleteInBatches(client, rows, 'purge write intents');
      }
    }
    return deleted;
  }
}

/** The partition of an intent: its request's day, or (kept before days) its key's first two characters. */
function partitionOf(key: string, day: string | undefined): string {
  const spread = key.slice(0, 2);
  return day === undefined ? spread : `${DAY}${day}~${spread}`;
}
