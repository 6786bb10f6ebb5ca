import { odata, type TableClient } from '@azure/data-tables';
import { applyRecordUpdate, type AccountRecordUpdate } from '../domain/account-record';
import type { AccountLink, AccountLinkStore } from './account-links';
import { EnsuredTable } from './ensured-table';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { decodeTableKey, encodeTableKey } from './table-key';

interface LinkRow {
  targetId: string;
  linkedAt: string;
  createdAt?: string;
  enabled?: boolean;
  enabledAt?: string;
  /** JSON array of group ids. */
  assignedGroups?: string;
  /** JSON object: group id -> { member, at }. */
  groupWrites?: string;
  /** JSON array of { id, at }: objects the service deleted for this account ID. */
  deletedTargetIds?: string;
}

/**
 * Account links in Table Storage: PartitionKey is the connector, RowKey the account ID
 * (encoded). One writer per account (the lease), so an update reads and replaces the row.
 */
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
      return linkOf(row);
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read an account link', error);
    }
  }

  async *listLinked(connector: string): AsyncGenerator<AccountLink> {
    const client = await this.table.client();
    const pages = client
      .listEntities<LinkRow>({
        queryOptions: { filter: odata`PartitionKey eq ${encodeTableKey(connector)}` },
      })
      .byPage({ maxPageSize: 1000 });
    for (;;) {
      const page = await guardStorage('list the account links', async () => {
        const next = await pages.next();
        return next.done === true ? undefined : next.value;
      });
      if (page === undefined) return;
      for (const row of page) if (row.targetId !== '') yield linkOf(row);
    }
  }

  async put(link: AccountLink): Promise<void> {
    const client = await this.table.client();
    const row: LinkRow & { partitionKey: string; rowKey: string } = {
      partitionKey: encodeTableKey(link.connector),
      rowKey: encodeTableKey(link.accountId),
      targetId: link.targetId,
      linkedAt: link.linkedAt,
      ...(link.createdAt === undefined ? {} : { createdAt: link.createdAt }),
      ...(link.enabled === undefined ? {} : { enabled: link.enabled }),
      ...(link.enabledAt === undefined ? {} : { enabledAt: link.enabledAt }),
      assignedGroups: JSON.stringify(link.assignedGroups),
      ...(link.groupWrites === undefined ? {} : { groupWrites: JSON.stringify(link.groupWrites) }),
      ...(link.deletedTargetIds === undefined
        ? {}
        : { deletedTargetIds: JSON.stringify(link.deletedTargetIds) }),
    };
    await guardStorage('write an account link', () => client.upsertEntity(row, 'Replace'));
  }

  async update(
    connector: string,
    accountId: string,
    update: AccountRecordUpdate,
    stored?: AccountLink | null,
  ): Promise<AccountLink | null> {
    const current =
      stored === undefined ? await this.get(connector, accountId) : (stored ?? undefined);
    const next = applyRecordUpdate(current, connector, accountId, update);
    if (next !== undefined && next !== current) await this.put(next);
    else if (next === undefined && current !== undefined) await this.remove(connector, accountId);
    return next ?? null;
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

function linkOf(row: LinkRow & { partitionKey?: string; rowKey?: string }): AccountLink {
  return {
    connector: decodeTableKey(row.partitionKey ?? ''),
    accountId: decodeTableKey(row.rowKey ?? ''),
    targetId: row.targetId,
    linkedAt: row.linkedAt,
    ...(row.createdAt === undefined ? {} : { createdAt: row.createdAt }),
    ...(row.enabled === undefined ? {} : { enabled: row.enabled }),
    ...(row.enabledAt === undefined ? {} : { enabledAt: row.enabledAt }),
    assignedGroups: readGroups(row.assignedGroups),
    ...readGroupWrites(row.groupWrites),
    ...readDeleted(row.deletedTargetIds),
  };
}

function readGroups(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

function readGroupWrites(text: string | undefined): Pick<AccountLink, 'groupWrites'> {
  if (text === undefined || text === '') return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return {};
    const writes: NonNullable<AccountLink['groupWrites']> = {};
    for (const [id, write] of Object.entries(parsed as Record<string, unknown>)) {
      const { member, at } = (write ?? {}) as { member?: unknown; at?: unknown };
      if (typeof member === 'boolean' && typeof at === 'string') writes[id] = { member, at };
    }
    return { groupWrites: writes };
  } catch {
    return {};
  }
}

function readDeleted(text: string | undefined): Pick<AccountLink, 'deletedTargetIds'> {
  if (text === undefined || text === '') return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return {};
    return {
      deletedTargetIds: parsed.filter(
        (entry): entry is { id: string; at: string } =>
          typeof (entry as { id?: unknown }).id === 'string' &&
          typeof (entry as { at?: unknown }).at === 'string',
      ),
    };
  } catch {
    return {};
  }
}
