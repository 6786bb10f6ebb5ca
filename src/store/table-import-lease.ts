import type { TableClient } from '@azure/data-tables';
import { ProvisioningError } from '../domain/errors';
import type { ImportClaim, ImportLease, ImportLeaseAnswer } from './role-catalogue';
import { storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';

/*
 * The import leases live in the catalogue's table under a partition no connector can have
 * (connector names are lowercase letters, digits and dashes), one row per connector.
 */
const LEASE_PARTITION = '~import-leases';

interface LeaseRow {
  jobId: string;
  since: string;
  expiresAt: string;
}

/**
 * One catalogue import per connector at a time: the job that holds the connector's lease
 * is the only one that may mark its roles gone. Taken and renewed under the row's ETag, so
 * two jobs that race for it cannot both win.
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
      partitionKey: LEASE_PARTITION,
      rowKey: encodeTableKey(connector),
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

  /** Throws IMPORT_ALREADY_RUNNING unless `jobId` holds the connector's lease. */
  async assertHeld(connector: string, jobId: string): Promise<void> {
    const holder = await this.holder(connector);
    if (holder?.jobId !== jobId) throw superseded(connector, jobId, holder);
  }

  /** Ends the job's lease; one another job holds is left alone. */
  async release(connector: string, jobId: string): Promise<void> {
    const stored = await this.read(connector);
    if (stored === undefined || stored.lease.jobId !== jobId) return;
    const client = await this.client();
    await this.attempt(() =>
      client.deleteEntity(LEASE_PARTITION, encodeTableKey(connector), { etag: stored.etag }),
    );
  }

  private async read(connector: string): Promise<{ lease: ImportLease; etag: string } | undefined> {
    const client = await this.client();
    try {
      const row = await client.getEntity<LeaseRow>(LEASE_PARTITION, encodeTableKey(connector));
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
