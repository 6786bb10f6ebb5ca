import type { TableClient } from '@azure/data-tables';
import { ensureTable } from './storage-clients';
import { guardStorage } from './storage-failure';

/**
 * A table client that creates its table before the first call, once per process: stores
 * work on a fresh storage account (or a fresh Azurite) without a setup step. A failed
 * creation is tried again by the next call.
 */
export class EnsuredTable {
  private ready: Promise<TableClient> | undefined;

  constructor(private readonly table: TableClient) {}

  /** The client, once its table exists. */
  client(): Promise<TableClient> {
    this.ready ??= guardStorage(`create table ${this.table.tableName}`, () =>
      ensureTable(this.table),
    ).then(
      () => this.table,
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }
}
