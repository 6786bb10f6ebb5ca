import type { TableClient } from '@azure/data-tables';
import { ProvisioningError } from '../domain/errors';
import type { ImportClaim, ImportLease, ImportLeaseAnswer } from './role-catalogue';
import { storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';
import { submitTransaction, type TableAction } from './table-transaction';

/**
 * A connector's import lease is a row of the connector's own partition of the catalogue, so
 * that marking roles gone can be one transaction with a write of the lease under its ETag
 * ({@link TableImportLease.markWhileHeld}). No role can have this RowKey: a role's RowKey is
 * its group id through encodeTableKey, where every `%` starts a two-hex-digit escape.
 */
export const IMPORT_LEASE_ROW = '%import-lease';

/** Azure Table Storage: at most 100 operations per entity group transaction. */
const MAX_TRANSACTION = 100;

interface LeaseRow {
  jobId: string;
  since: string;
  expiresAt: string;
}

/**
 * One catalogue import per connector at a time: the job that holds the connector's lease
 * is the only one that may mark its roles gone. Taken and renewed under the row's ETag, so
 * two jobs that race for it cannot both win; roles are marked in the same transaction as a
 * renewal under that ETag, so a job whose lease expired or was taken marks nothing.
 */
export class TableImportLease {
  constructor(private readonly client: () => Promise<TableClient>) {}

  /** The lease as stored (expired or not); undefined when no import ever held it, or it was released. */
  async holder(connector: string): Promise<ImportLease | undefined> {
    return (await this.read(connector))?.lease;
  }

  async claim(connector: string, claim: ImportClaim): Promise<ImportLeaseAnswer> {
    const client = await this.client();
    const entity = {
      partitionKey: encodeTableKey(connector),
      rowKey: IMPORT_LEASE_ROW,
      jobId: claim.jobId,
      since: new Date(claim.nowMs).toISOString(),
      expiresAt: new Date(claim.nowMs + claim.ttlMs).toISOString(),
    };
    // A rival that created, replaced or deleted the row between our read and write is read
    // again; held only once this job's own write went through (or the row shows it).
    for (let round = 0; round < 3; round += 1) {
      const stored = await this.read(connector);
      if (stored === undefined) {
        if (await this.attempt(() => client.createEntity(entity))) return { held: true };
        continue;
      }
      const { lease, etag } = stored;
      const free =
        lease.jobId === claim.jobId ||
        lease.jobId === claim.replacing ||
        Date.parse(lease.expiresAt) <= claim.nowMs;
      if (!free) return { held: false, holder: lease };
      const since = lease.jobId === claim.jobId ? lease.since : entity.since;
      if (
        await this.attempt(() => client.updateEntity({ ...entity, since }, 'Replace', { etag }))
      ) {
        return { held: true };
      }
    }
    const holder = await this.holder(connector);
    if (holder?.jobId === claim.jobId) return { held: true };
    // Still contended after three rounds: not held, and nothing written says otherwise.
    if (holder === undefined) {
      throw new ProvisioningError(
        'INTERNAL_ERROR',
        `the import lease of connector "${connector}" kept changing under job ${claim.jobId}: try again`,
        { retryable: true, object: connector },
      );
    }
    return { held: false, holder };
  }

  /**
   * Writes `rows` (Merge, rows of the connector's partition) only while `claim.jobId` holds
   * the connector's lease unexpired at `claim.nowMs`: each transaction of up to 99 rows also
   * renews the lease under the ETag read just before, so a lease that expired or another job
   * took in between fails the transaction whole (412) and nothing of it is written. Throws
   * IMPORT_ALREADY_RUNNING, writing nothing more, once the job does not hold it.
   */
  async markWhileHeld(
    connector: string,
    claim: ImportClaim,
    rows: readonly { partitionKey: string; rowKey: string; [key: string]: unknown }[],
  ): Promise<void> {
    const client = await this.client();
    const size = MAX_TRANSACTION - 1;
    for (let start = 0; start < rows.length; start += size) {
      const part = rows.slice(start, start + size);
      for (let round = 0; ; round += 1) {
        const stored = await this.read(connector);
        const live = stored !== undefined && Date.parse(stored.lease.expiresAt) > claim.nowMs;
        if (stored === undefined || !live || stored.lease.jobId !== claim.jobId) {
          throw superseded(connector, claim.jobId, live ? stored?.lease : undefined);
        }
        const renewed = {
          partitionKey: encodeTableKey(connector),
          rowKey: IMPORT_LEASE_ROW,
          expiresAt: new Date(claim.nowMs + claim.ttlMs).toISOString(),
        };
        const actions: TableAction[] = [
          ['update', renewed, 'Merge', { etag: stored.etag }],
          ...part.map((row): TableAction => ['upsert', row, 'Merge']),
        ];
        try {
          await submitTransaction(client, actions);
          break;
        } catch (error) {
          const status = storageStatus(error);
          // The lease row changed since it was read: read it again (held still, or not).
          if ((status === 412 || status === 404) && round < 2) continue;
          if (status === 412 || status === 404) throw superseded(connector, claim.jobId, undefined);
          throw storageFailure('mark catalogue roles gone', error);
        }
      }
    }
  }

  /** Ends the job's lease; one another job holds is left alone. */
  async release(connector: string, jobId: string): Promise<void> {
    const stored = await this.read(connector);
    if (stored === undefined || stored.lease.jobId !== jobId) return;
    const client = await this.client();
    await this.attempt(() =>
      client.deleteEntity(encodeTableKey(connector), IMPORT_LEASE_ROW, { etag: stored.etag }),
    );
  }

  private async read(connector: string): Promise<{ lease: ImportLease; etag: string } | undefined> {
    const client = await this.client();
    try {
      const row = await client.getEntity<LeaseRow>(encodeTableKey(connector), IMPORT_LEASE_ROW);
      return {
        lease: { jobId: row.jobId, since: row.since, expiresAt: row.expiresAt },
        etag: row.etag,
      };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read the import lease', error);
    }
  }

  /** False when a rival wrote the row first (409 on create, 412 or 404 on a conditional write). */
  private async attempt(call: () => Promise<unknown>): Promise<boolean> {
    try {
      await call();
      return true;
    } catch (error) {
      const status = storageStatus(error);
      if (status === 409 || status === 412 || status === 404) return false;
      throw storageFailure('take the import lease', error);
    }
  }
}

/** The error of a job that does not (or no longer) hold its connector's import lease. */
export function superseded(
  connector: string,
  jobId: string,
  holder: ImportLease | undefined,
): ProvisioningError {
  return new ProvisioningError(
    'IMPORT_ALREADY_RUNNING',
    holder === undefined
      ? `import job ${jobId} of connector "${connector}" no longer holds the connector's import lease: it stopped before marking any role gone`
      : `another catalogue import of connector "${connector}" is running (job ${holder.jobId}, since ${holder.since}): import job ${jobId} stopped before marking any role gone`,
    {
      object: connector,
      details: holder === undefined ? { jobId } : { jobId, runningJobId: holder.jobId },
    },
  );
}
