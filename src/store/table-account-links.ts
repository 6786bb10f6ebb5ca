import type { TableClient } from '@azure/data-tables';
import type { AccountLink, AccountLinkStore } from './account-links';
import { EnsuredTable } from './ensured-table';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { decodeTableKey, encodeTableKey } from './table-key';

interface LinkRow {
  targetId: string;
  linkedAt: string;
}

/** Account links in Table Storage: PartitionKey is the connector, RowKey the account ID (encoded). */
export class TableAccountLinks implements AccountLinkStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async get(connector: string, accountId: string): Promise<AccountLink | undefined> {
    const client = await this.table.client();
    try {
      const row = await client.getEntity<LinkRow>(
        encodeTableKey(connector),
        encodeTableKey(accountId),
      );
      return {
        connector: decodeTableKey(row.partitionKey ?? ''),
        accountId: decodeTableKey(row.rowKey ?? ''),
        targetId: row.targetId,
        linkedAt: row.linkedAt,
      };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read an account link', error);
    }
  }

  async put(link: AccountLink): Promise<void> {
    const client = await this.table.client();
    await guardStorage('write an account link', () =>
      client.upsertEntity(
        {
          partitionKey: encodeTableKey(link.connector),
          rowKey: encodeTableKey(link.accountId),
          targetId: link.targetId,
          linkedAt: link.linkedAt,
        },
        'Replace',
      ),
    );
  }

  async remove(connector: string, accountId: string): Promise<void> {
    const client = await this.table.client();
    try {
      await client.deleteEntity(encodeTableKey(connector), encodeTableKey(accountId));
    } catch (error) {
      if (storageStatus(error) === 404) return;
      throw storageFailure('remove an account link', error);
    }
  }
}
