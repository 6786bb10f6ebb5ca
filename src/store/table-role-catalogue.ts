import { odata, type TableClient, type TableEntityResult } from '@azure/data-tables';
import {
  outcomeOfRepeatedSighting,
  reconcileImportedGroup,
  type ImportOutcome,
} from '../domain/catalogue-import';
import type { GroupRef } from '../domain/group';
import { EnsuredTable } from './ensured-table';
import type {
  CatalogueRole,
  ImportOptions,
  ImportPageCounts,
  RoleCatalogueStore,
} from './role-catalogue';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { upsertInBatches } from './table-batches';
import { decodeTableKey, encodeTableKey } from './table-key';

/** A role as stored: the role, and what its last import did with it (for retried pages). */
interface RoleRow extends Omit<CatalogueRole, 'connector' | 'groupId'> {
  importOutcome?: ImportOutcome;
}

/*
 * Table Storage allows at most 15 comparisons in one $filter: the partition key and 14
 * row keys per query when reading the existing rows of an import page.
 */
const ROW_KEYS_PER_QUERY = 14;

/**
 * The role catalogue in Table Storage: PartitionKey is the connector, RowKey the group id
 * (encoded). Roles are never deleted: a group missing from a complete import becomes
 * `gone` and may return.
 */
export class TableRoleCatalogue implements RoleCatalogueStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
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
    const existing = await this.readRows(
      connector,
      unique.map((group) => group.id),
    );
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
      return toEntity(role, reported);
    });
    const client = await this.table.client();
    await guardStorage('write catalogue roles', () => upsertInBatches(client, rows, 'Replace'));
    return counts;
  }

  /** Present roles the job did not see become `gone` since `at`; returns how many. */
  async markGone(connector: string, jobId: string, at: string): Promise<number> {
    const client = await this.table.client();
    const partitionKey = encodeTableKey(connector);
    const filter = odata`PartitionKey eq ${partitionKey} and status eq ${'present'} and lastSeenJobId ne ${jobId}`;
    const stale = await guardStorage('read catalogue roles', async () => {
      const rowKeys: string[] = [];
      for await (const row of client.listEntities({
        queryOptions: { filter, select: ['RowKey'] },
      })) {
        if (row.rowKey !== undefined) rowKeys.push(row.rowKey);
      }
      return rowKeys;
    });
    const updates = stale.map((rowKey) => ({
      partitionKey,
      rowKey,
      status: 'gone',
      goneSince: at,
    }));
    await guardStorage('mark catalogue roles gone', () =>
      upsertInBatches(client, updates, 'Merge'),
    );
    return updates.length;
  }

  private async readPartition(connector: string, includeGone: boolean): Promise<CatalogueRole[]> {
    const client = await this.table.client();
    const partition = encodeTableKey(connector);
    const filter = includeGone
      ? odata`PartitionKey eq ${partition}`
      : odata`PartitionKey eq ${partition} and status eq ${'present'}`;
    return guardStorage('read catalogue roles', async () => {
      const roles: CatalogueRole[] = [];
      for await (const row of client.listEntities<RoleRow>({ queryOptions: { filter } })) {
        roles.push(fromRow(row));
      }
      return roles;
    });
  }

  private async readRows(
    connector: string,
    groupIds: readonly string[],
  ): Promise<Map<string, { role: CatalogueRole; outcome: ImportOutcome | undefined }>> {
    const client = await this.table.client();
    const partition = encodeTableKey(connector);
    const chunks: string[][] = [];
    for (let start = 0; start < groupIds.length; start += ROW_KEYS_PER_QUERY) {
      chunks.push(groupIds.slice(start, start + ROW_KEYS_PER_QUERY).map(encodeTableKey));
    }
    const found = new Map<string, { role: CatalogueRole; outcome: ImportOutcome | undefined }>();
    await guardStorage('read catalogue roles', () =>
      Promise.all(
        chunks.map(async (rowKeys) => {
          const anyRow = rowKeys.map((rowKey) => odata`RowKey eq ${rowKey}`).join(' or ');
          const filter = `${odata`PartitionKey eq ${partition}`} and (${anyRow})`;
          for await (const row of client.listEntities<RoleRow>({ queryOptions: { filter } })) {
            const role = fromRow(row);
            found.set(role.groupId, { role, outcome: row.importOutcome });
          }
        }),
      ),
    );
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
