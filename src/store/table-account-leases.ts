import type { TableClient } from '@azure/data-tables';
import type { AccountLeaseStore, LeaseResult } from './account-leases';
import { EnsuredTable } from './ensured-table';
import { storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';

interface LeaseRow {
  owner: string;
  /** Milliseconds since the epoch, from the caller's clock. */
  expiresAtMs: number;
  /** The same instant, for people reading the table. */
  expiresAt: string;
}

interface CurrentLease extends LeaseRow {
  etag: string;
}

/*
 * Each round either takes the lease or learns who holds it; a round only repeats when the
 * row vanished between two calls (released meanwhile), so a few rounds are plenty.
 */
const MAX_ROUNDS = 5;

/**
 * Account leases in Table Storage (DESIGN invariant 7): PartitionKey is the connector,
 * RowKey the account ID (encoded). Taking a lease is optimistic: insert when there is no
 * row (409: someone else inserted first), otherwise replace the row under its ETag when it
 * is expired or ours (412: someone else replaced it first). Exactly one of any number of
 * concurrent callers wins.
 */
export class TableAccountLeases implements AccountLeaseStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async acquire(
    connector: string,
    accountId: string,
    owner: string,
    nowMs: number,
    ttlMs: number,
  ): Promise<LeaseResult> {
    const client = await this.table.client();
    const partitionKey = encodeTableKey(connector);
    const rowKey = encodeTableKey(accountId);
    const expiresAtMs = nowMs + ttlMs;
    const lease = {
      partitionKey,
      rowKey,
      owner,
      expiresAtMs,
      expiresAt: new Date(expiresAtMs).toISOString(),
    };
    const taken = (etag: string | undefined): LeaseResult => ({
      acquired: true,
      expiresAt: lease.expiresAt,
      ...(etag === undefined ? {} : { etag }),
    });
    // Most accounts have no lease row: try to create it first (one call on the common path).
    const created = await this.attemptWrite(() => client.createEntity(lease), 409);
    if (created !== false) return taken(created.etag);

    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await this.read(client, partitionKey, rowKey);
      if (current === undefined) {
        const again = await this.attemptWrite(() => client.createEntity(lease), 409);
        if (again !== false) return taken(again.etag);
        continue;
      }
      if (current.owner !== owner && current.expiresAtMs > nowMs) return heldBy(current);
      const replaced = await this.attemptWrite(
        () => client.updateEntity(lease, 'Replace', { etag: current.etag }),
        412,
      );
      if (replaced !== false) return taken(replaced.etag);
      // Lost the race: whoever replaced the row holds the lease now.
      const winner = await this.read(client, partitionKey, rowKey);
      if (winner === undefined) continue;
      return winner.owner === owner
        ? { acquired: true, expiresAt: winner.expiresAt }
        : heldBy(winner);
    }
    return { acquired: false };
  }

  async release(connector: string, accountId: string, owner: string, etag?: string): Promise<void> {
    const client = await this.table.client();
    const partitionKey = encodeTableKey(connector);
    const rowKey = encodeTableKey(accountId);
    if (etag !== undefined) {
      // The row as this owner last wrote it: one call; anything else falls back to a read.
      try {
        await client.deleteEntity(partitionKey, rowKey, { etag });
        return;
      } catch (error) {
        const status = storageStatus(error);
        if (status === 404) return;
        if (status !== 412) throw storageFailure('release an account lease', error);
      }
    }
    const current = await this.read(client, partitionKey, rowKey);
    if (current?.owner !== owner) return;
    try {
      // Under the ETag: a lease taken over by someone else meanwhile stays theirs.
      await client.deleteEntity(partitionKey, rowKey, { etag: current.etag });
    } catch (error) {
      const status = storageStatus(error);
      if (status === 404 || status === 412) return;
      throw storageFailure('release an account lease', error);
    }
  }

  private async read(
    client: TableClient,
    partitionKey: string,
    rowKey: string,
  ): Promise<CurrentLease | undefined> {
    try {
      const row = await client.getEntity<LeaseRow>(partitionKey, rowKey);
      return {
        owner: row.owner,
        expiresAtMs: row.expiresAtMs,
        expiresAt: row.expiresAt,
        etag: row.etag,
      };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read an account lease', error);
    }
  }

  /** Runs a conditional write: its ETag when it applied, false when it lost on `conflictStatus`. */
  private async attemptWrite(
    write: () => Promise<{ etag?: string }>,
    conflictStatus: number,
  ): Promise<{ etag: string | undefined } | false> {
    try {
      const response = await write();
      return { etag: response.etag };
    } catch (error) {
      if (storageStatus(error) === conflictStatus) return false;
      throw storageFailure('take an account lease', error);
    }
  }
}

function heldBy(lease: LeaseRow): LeaseResult {
  return { acquired: false, holder: lease.owner, expiresAt: lease.expiresAt };
}
