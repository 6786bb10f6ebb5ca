import { odata, type TableClient, type TableEntityResult } from '@azure/data-tables';
import {
  outcomeOfRepeatedSighting,
  reconcileImportedGroup,
  type ImportOutcome,
} from '../domain/catalogue-import';
import type { GroupRef } from '../domain/group';
import { EnsuredTable } from './ensured-table';
import { IMPORT_LEASE_ROW, TableImportLease } from './table-import-lease';
import type {
  CatalogueRole,
  ImportClaim,
  ImportLease,
  ImportLeaseAnswer,
  ImportOptions,
  ImportPageCounts,
  RoleCatalogueStore,
  ImportProgress,
  LeaseTerm,
  RoleSnapshot,
  SavedChangeCursor,
} from './role-catalogue';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { upsertInBatches } from './table-batches';
import { decodeTableKey, encodeTableKey } from './table-key';

/** A role as stored: the role, and what its last import did with it (for retried pages). */
interface RoleRow extends Omit<CatalogueRole, 'connector' | 'groupId'> {
  importOutcome?: ImportOutcome;
  /** The import job that marked the role gone. */
  goneJobId?: string;
}

/** What is stored of a role: the role, and which jobs last touched it. */
interface StoredRole {
  role: CatalogueRole;
  outcome: ImportOutcome | undefined;
  goneJobId: string | undefined;
}

/*
 * The change cursors live in the catalogue's table under a partition no connector can
 * have (connector names are lowercase letters, digits and dashes), one row per connector.
 */
const CURSOR_PARTITION = '~change-cursors';
/** Progress of running imports, one row per job, in a partition of the same kind. */
const PROGRESS_PARTITION = '~import-progress';

/** Point reads of one page's rows in flight at once. */
const READS_IN_FLIGHT = 16;

/** A snapshot of this store: the stored roles by group id. */
class TableRoleSnapshot implements RoleSnapshot {
  constructor(
    readonly connector: string,
    readonly rows: Map<string, StoredRole>,
  ) {}

  get size(): number {
    return this.rows.size;
  }
}

/**
 * The role catalogue in Table Storage: PartitionKey is the connector, RowKey the group id
 * (encoded); the connector's import lease is a row of the same partition (IMPORT_LEASE_ROW). Roles are never deleted: a group missing from a complete import becomes
 * `gone` and may return.
 */
export class TableRoleCatalogue implements RoleCatalogueStore {
  private readonly table: EnsuredTable;

  private readonly leases: TableImportLease;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
    this.leases = new TableImportLease(() => this.table.client());
  }

  /** Roles ordered by name (case-insensitive); `search` matches the service or target name. */
  async list(
    connector: string,
    options: { search?: string; includeGone?: boolean } = {},
  ): Promise<CatalogueRole[]> {
    const search = options.search?.toLocaleLowerCase();
    const roles = (await this.readPartition(connector, options.includeGone === true)).filter(
      (role) =>
        search === undefined ||
        role.displayName.toLocaleLowerCase().includes(search) ||
        role.targetName.toLocaleLowerCase().includes(search),
    );
    return roles.sort(byName);
  }

  async get(connector: string, groupId: string): Promise<CatalogueRole | undefined> {
    const client = await this.table.client();
    try {
      const row = await client.getEntity<RoleRow>(
        encodeTableKey(connector),
        encodeTableKey(groupId),
      );
      return fromRow(row);
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read a catalogue role', error);
    }
  }

  async applyImportPage(
    connector: string,
    groups: readonly GroupRef[],
    options: ImportOptions,
    snapshot?: RoleSnapshot,
  ): Promise<ImportPageCounts> {
    const counts: ImportPageCounts = {
      added: 0,
      renamed: 0,
      renameSkipped: 0,
      unchanged: 0,
      returned: 0,
    };
    // A group listed twice on one page counts once, with its last listing.
    const unique = [...new Map(groups.map((group) => [group.id, group])).values()];
    if (unique.length === 0) return counts;
    const known =
      snapshot instanceof TableRoleSnapshot && snapshot.connector === connector
        ? snapshot.rows
        : undefined;
    const existing =
      known ??
      (await this.readRows(
        connector,
        unique.map((group) => group.id),
      ));
    const applied: StoredRole[] = [];
    const rows = unique.map((group) => {
      const before = existing.get(group.id);
      const { role, outcome } = reconcileImportedGroup(before?.role, group, {
        ...options,
        connector,
      });
      const reported = outcomeOfRepeatedSighting(before?.outcome, before?.role.lastSeenJobId, {
        jobId: options.jobId,
        outcome,
      });
      counts[reported] += 1;
      applied.push({ role, outcome: reported, goneJobId: undefined });
      return toEntity(role, reported);
    });
    const client = await this.table.client();
    await guardStorage('write catalogue roles', () => upsertInBatches(client, rows, 'Replace'));
    for (const stored of applied) known?.set(stored.role.groupId, stored);
    return counts;
  }

  async snapshot(connector: string): Promise<RoleSnapshot> {
    const client = await this.table.client();
    const filter = odata`PartitionKey eq ${encodeTableKey(connector)} and RowKey ne ${IMPORT_LEASE_ROW}`;
    const rows = new Map<string, StoredRole>();
    await guardStorage('read catalogue roles', async () => {
      for await (const row of client.listEntities<RoleRow>({ queryOptions: { filter } })) {
        const role = fromRow(row);
        rows.set(role.groupId, { role, outcome: row.importOutcome, goneJobId: row.goneJobId });
      }
    });
    return new TableRoleSnapshot(connector, rows);
  }

  async unseenRoles(connector: string, jobId: string): Promise<CatalogueRole[]> {
    const client = await this.table.client();
    const filter = odata`PartitionKey eq ${encodeTableKey(connector)} and status eq ${'present'} and lastSeenJobId ne ${jobId}`;
    return guardStorage('read catalogue roles', async () => {
      const roles: CatalogueRole[] = [];
      for await (const row of client.listEntities<RoleRow>({ queryOptions: { filter } })) {
        roles.push(fromRow(row));
      }
      return roles.sort(byName);
    });
  }

  async markRemoved(
    connector: string,
    groupIds: readonly string[],
    options: Pick<ImportOptions, 'jobId' | 'at'>,
    lease: LeaseTerm,
  ): Promise<number> {
    const unique = [...new Set(groupIds)];
    if (unique.length === 0) return 0;
    const existing = await this.readRows(connector, unique);
    const partitionKey = encodeTableKey(connector);
    let marked = 0;
    const updates: { partitionKey: string; rowKey: string; [key: string]: unknown }[] = [];
    for (const { role, goneJobId } of existing.values()) {
      if (role.status === 'gone') {
        if (goneJobId === options.jobId) marked += 1;
        continue;
      }
      marked += 1;
      updates.push({
        partitionKey,
        rowKey: encodeTableKey(role.groupId),
        status: 'gone',
        goneSince: options.at,
        goneJobId: options.jobId,
      });
    }
    // Written with a renewal of the job's lease under its ETag: a lease that expired or
    // another job took marks nothing.
    await this.leases.markWhileHeld(connector, { jobId: options.jobId, ...lease }, updates);
    return marked;
  }

  async changeCursor(connector: string): Promise<SavedChangeCursor | undefined> {
    const client = await this.table.client();
    try {
      const row = await client.getEntity<SavedChangeCursor>(
        CURSOR_PARTITION,
        encodeTableKey(connector),
      );
      return { cursor: row.cursor, jobId: row.jobId, savedAt: row.savedAt };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read the catalogue change cursor', error);
    }
  }

  async saveChangeCursor(connector: string, cursor: SavedChangeCursor): Promise<void> {
    const client = await this.table.client();
    await guardStorage('save the catalogue change cursor', () =>
      client.upsertEntity(
        { partitionKey: CURSOR_PARTITION, rowKey: encodeTableKey(connector), ...cursor },
        'Replace',
      ),
    );
  }

  claimImport(connector: string, claim: ImportClaim): Promise<ImportLeaseAnswer> {
    return this.leases.claim(connector, claim);
  }

  importLease(connector: string): Promise<ImportLease | undefined> {
    return this.leases.holder(connector);
  }

  releaseImport(connector: string, jobId: string): Promise<void> {
    return this.leases.release(connector, jobId);
  }

  async saveImportProgress(jobId: string, progress: ImportProgress): Promise<void> {
    const client = await this.table.client();
    await guardStorage('save the progress of an import', () =>
      client.upsertEntity(
        { partitionKey: PROGRESS_PARTITION, rowKey: encodeTableKey(jobId), ...progress },
        'Replace',
      ),
    );
  }

  async importProgress(jobId: string): Promise<ImportProgress | undefined> {
    const client = await this.table.client();
    try {
      const row = await client.getEntity<ImportProgress>(PROGRESS_PARTITION, encodeTableKey(jobId));
      return {
        mode: row.mode,
        groupsRead: row.groupsRead,
        groupsApplied: row.groupsApplied,
        at: row.at,
      };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read the progress of an import', error);
    }
  }

  private async readPartition(connector: string, includeGone: boolean): Promise<CatalogueRole[]> {
    const client = await this.table.client();
    const partition = encodeTableKey(connector);
    const filter = includeGone
      ? odata`PartitionKey eq ${partition} and RowKey ne ${IMPORT_LEASE_ROW}`
      : odata`PartitionKey eq ${partition} and status eq ${'present'}`;
    return guardStorage('read catalogue roles', async () => {
      const roles: CatalogueRole[] = [];
      for await (const row of client.listEntities<RoleRow>({ queryOptions: { filter } })) {
        roles.push(fromRow(row));
      }
      return roles;
    });
  }

  /** The stored rows of these groups, by point reads (the cheapest reads Table Storage has). */
  private async readRows(
    connector: string,
    groupIds: readonly string[],
  ): Promise<Map<string, StoredRole>> {
    const client = await this.table.client();
    const partition = encodeTableKey(connector);
    const found = new Map<string, StoredRole>();
    const read = async (groupId: string): Promise<void> => {
      try {
        const row = await client.getEntity<RoleRow>(partition, encodeTableKey(groupId));
        found.set(groupId, {
          role: fromRow(row),
          outcome: row.importOutcome,
          goneJobId: row.goneJobId,
        });
      } catch (error) {
        if (storageStatus(error) !== 404) throw storageFailure('read catalogue roles', error);
      }
    };
    for (let start = 0; start < groupIds.length; start += READS_IN_FLIGHT) {
      await Promise.all(groupIds.slice(start, start + READS_IN_FLIGHT).map(read));
    }
    return found;
  }
}

function byName(a: CatalogueRole, b: CatalogueRole): number {
  return (
    a.displayName.localeCompare(b.displayName, 'en', { sensitivity: 'base' }) ||
    a.displayName.localeCompare(b.displayName, 'en') ||
    a.groupId.localeCompare(b.groupId, 'en')
  );
}

function toEntity(role: CatalogueRole, outcome: ImportOutcome) {
  const { connector, groupId, ...rest } = role;
  return {
    partitionKey: encodeTableKey(connector),
    rowKey: encodeTableKey(groupId),
    ...rest,
    importOutcome: outcome,
  };
}

function fromRow(row: TableEntityResult<RoleRow>): CatalogueRole {
  return {
    connector: decodeTableKey(row.partitionKey ?? ''),
    groupId: decodeTableKey(row.rowKey ?? ''),
    displayName: row.displayName,
    targetName: row.targetName,
    writable: row.writable,
    ...(row.notWritableReason === undefined ? {} : { notWritableReason: row.notWritableReason }),
    status: row.status,
    firstImportedAt: row.firstImportedAt,
    lastImportedAt: row.lastImportedAt,
    lastSeenJobId: row.lastSeenJobId,
    ...(row.goneSince === undefined ? {} : { goneSince: row.goneSince }),
  };
}
