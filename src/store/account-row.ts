import type { AccountRecord } from '../domain/account-record';
import { decodeTableKey, encodeTableKey } from './table-key';

/**
 * An account's row among its connector's journal entries. Journal RowKeys start with an ISO
 * time (a digit); `~` sorts after every digit and letter, so the account rows follow the
 * entries and a journal query stops before them (`RowKey lt '~'`).
 */
export const ACCOUNT_ROW_PREFIX = '~account~';
export const JOURNAL_ROWS_END = '~';

/** The row's columns: the record's (absent when there is none) and the lease's. */
export interface AccountRow {
  targetId?: string;
  linkedAt?: string;
  createdAt?: string;
  enabled?: boolean;
  enabledAt?: string;
  /** JSON array of group ids. */
  assignedGroups?: string;
  /** JSON object: group id -> { member, at }. */
  groupWrites?: string;
  /** JSON array of { id, at }: objects the service deleted for this account ID. */
  deletedTargetIds?: string;
  leaseOwner?: string;
  /** Milliseconds since the epoch, from the caller's clock. */
  leaseExpiresAtMs?: number;
  /** The same instant, for people reading the table. */
  leaseExpiresAt?: string;
}

export interface Lease {
  owner: string;
  expiresAtMs: number;
  expiresAt: string;
}

/** PartitionKey and RowKey of an account's row. */
export function accountRowKeys(
  connector: string,
  accountId: string,
): { partitionKey: string; rowKey: string } {
  return {
    partitionKey: encodeTableKey(connector),
    rowKey: `${ACCOUNT_ROW_PREFIX}${encodeTableKey(accountId)}`,
  };
}

/** The account ID a row is for. */
export function accountIdOfRow(rowKey: string): string {
  return decodeTableKey(rowKey.slice(ACCOUNT_ROW_PREFIX.length));
}

/** The record a row holds, or null when it holds only a lease. */
export function recordOfRow(
  connector: string,
  accountId: string,
  row: AccountRow,
): AccountRecord | null {
  if (row.targetId === undefined || row.linkedAt === undefined) return null;
  return {
    connector,
    accountId,
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

/** The lease a row holds, if any. */
export function leaseOfRow(row: AccountRow): Lease | undefined {
  if (row.leaseOwner === undefined || row.leaseExpiresAtMs === undefined) return undefined;
  return {
    owner: row.leaseOwner,
    expiresAtMs: row.leaseExpiresAtMs,
    expiresAt: row.leaseExpiresAt ?? new Date(row.leaseExpiresAtMs).toISOString(),
  };
}

/** The columns of a record and a lease (either may be absent). */
export function toAccountRow(record: AccountRecord | null, lease: Lease | undefined): AccountRow {
  return {
    ...(record === null
      ? {}
      : {
          targetId: record.targetId,
          linkedAt: record.linkedAt,
          ...(record.createdAt === undefined ? {} : { createdAt: record.createdAt }),
          ...(record.enabled === undefined ? {} : { enabled: record.enabled }),
          ...(record.enabledAt === undefined ? {} : { enabledAt: record.enabledAt }),
          assignedGroups: JSON.stringify(record.assignedGroups),
          ...(record.groupWrites === undefined
            ? {}
            : { groupWrites: JSON.stringify(record.groupWrites) }),
          ...(record.deletedTargetIds === undefined
            ? {}
            : { deletedTargetIds: JSON.stringify(record.deletedTargetIds) }),
        }),
    ...(lease === undefined
      ? {}
      : {
          leaseOwner: lease.owner,
          leaseExpiresAtMs: lease.expiresAtMs,
          leaseExpiresAt: lease.expiresAt,
        }),
  };
}

function readGroups(text: string | undefined): string[] {
  const parsed = parseJson(text);
  return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
}

function readGroupWrites(text: string | undefined): Pick<AccountRecord, 'groupWrites'> {
  const parsed = parseJson(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const writes: NonNullable<AccountRecord['groupWrites']> = {};
  for (const [id, write] of Object.entries(parsed as Record<string, unknown>)) {
    const { member, at } = (write ?? {}) as { member?: unknown; at?: unknown };
    if (typeof member === 'boolean' && typeof at === 'string') writes[id] = { member, at };
  }
  return { groupWrites: writes };
}

function readDeleted(text: string | undefined): Pick<AccountRecord, 'deletedTargetIds'> {
  const parsed = parseJson(text);
  if (!Array.isArray(parsed)) return {};
  return {
    deletedTargetIds: parsed.filter(
      (entry): entry is { id: string; at: string } =>
        typeof (entry as { id?: unknown }).id === 'string' &&
        typeof (entry as { at?: unknown }).at === 'string',
    ),
  };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
