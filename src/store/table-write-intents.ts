import type { TableClient } from '@azure/data-tables';
import { EnsuredTable } from './ensured-table';
import { storageFailure, storageStatus } from './storage-failure';
import type { WriteIntentStore } from './write-intents';

/**
 * Write intents in Table Storage: one row per intent key (PartitionKey: the key's first two
 * characters, to spread the rows), created with "insert, fail if it exists".
 */
export class TableWriteIntents implements WriteIntentStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async claim(key: string): Promise<boolean> {
    const client = await this.table.client();
    try {
      await client.createEntity({ partitionKey: key.slice(0, 2), rowKey: key });
      return false;
    } catch (error) {
      if (storageStatus(error) === 409) return true;
      throw storageFailure('record a write intent', error);
    }
  }
}
