import type { AccountRecord } from '../domain/account-record';
import type { LostEnabledWrite, LostWrite } from '../domain/lost-writes';
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
  enabledUnconfirmed?: boolean;
  profileAt?: string;
  /**
   * The account ID as first written (the key is its canonical form, see
   * {@link accountRowKeys}); absent in rows written before, whose key is the ID itself.
   */
  accountId?: string;
  /** JSON array of group ids (split over several properties when long: `splitJson`). */
  assignedGroups?: string;
  /** JSON object: group id -> { member, at }. */
  groupWrites?: string;
  /** JSON array of group ids whose membership is not known. */
  unconfirmedGroups?: string;
  /** JSON array of the grants and revokes whose answer was lost (`LostWrite`). */
  lostWrites?: string;
  /** JSON of the lock or unlock whose answer was lost (`LostEnabledWrite`). */
  lostEnabledWrite?: string;
  /** JSON array of { id, at }: objects the service deleted for this account ID. */
  deletedTargetIds?: string;
  /** JSON object: an operator's link (who, why, when, the object linked before). */
  linkedBy?: string;
  /** The further parts of a long JSON column: `<column>Part1`, ..., and `<column>Parts`. */
  [part: `${JsonColumn}Part${number}`]: string | undefined;
  assignedGroupsParts?: number;
  groupWritesParts?: number;
  deletedTargetIdsParts?: number;
  unconfirmedGroupsParts?: number;
  lostWritesParts?: number;
  leaseOwner?: string;
  /** Milliseconds since the epoch, from the caller's clock. */
  leaseExpiresAtMs?: number;
  /** The same instant, for people reading the table. */
  leaseExpiresAt?: string;
}

/** The record's columns that hold JSON, and may be split over several properties. */
type JsonColumn =
  'assignedGroups' | 'groupWrites' | 'deletedTargetIds' | 'unconfirmedGroups' | 'lostWrites';

/**
 * Table Storage holds at most 64 KiB in a string property, UTF-16: 32 Ki characters
 * (Azurite refuses more too, PropertyValueTooLarge). A longer JSON column is split.
 */
export const MAX_PROPERTY_CHARS = 32 * 1024;

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
    accountId: row.accountId ?? accountId,
    targetId: row.targetId,
    linkedAt: row.linkedAt,
    ...(row.createdAt === undefined ? {} : { createdAt: row.createdAt }),
    ...(row.enabled === undefined ? {} : { enabled: row.enabled }),
    ...(row.enabledAt === undefined ? {} : { enabledAt: row.enabledAt }),
    ...(row.enabledUnconfirmed === undefined ? {} : { enabledUnconfirmed: row.enabledUnconfirmed }),
    ...(row.profileAt === undefined ? {} : { profileAt: row.profileAt }),
    assignedGroups: readGroups(joinJson(row, 'assignedGroups')),
    ...readUnconfirmed(joinJson(row, 'unconfirmedGroups')),
    ...readLostWrites(joinJson(row, 'lostWrites')),
    ...readLostEnabledWrite(row.lostEnabledWrite),
    ...readGroupWrites(joinJson(row, 'groupWrites')),
    ...readDeleted(joinJson(row, 'deletedTargetIds')),
    ...readLinkedBy(row.linkedBy),
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
          ...(record.enabledUnconfirmed === undefined
            ? {}
            : { enabledUnconfirmed: record.enabledUnconfirmed }),
          ...(record.profileAt === undefined ? {} : { profileAt: record.profileAt }),
          accountId: record.accountId,
          ...splitJson('assignedGroups', record.assignedGroups),
          ...(record.groupWrites === undefined ? {} : splitJson('groupWrites', record.groupWrites)),
          ...(record.unconfirmedGroups === undefined
            ? {}
            : splitJson('unconfirmedGroups', record.unconfirmedGroups)),
          ...(record.lostWrites === undefined ? {} : splitJson('lostWrites', record.lostWrites)),
          ...(record.lostEnabledWrite === undefined
            ? {}
            : { lostEnabledWrite: JSON.stringify(record.lostEnabledWrite) }),
          ...(record.deletedTargetIds === undefined
            ? {}
            : splitJson('deletedTargetIds', record.deletedTargetIds)),
          ...(record.linkedBy === undefined ? {} : { linkedBy: JSON.stringify(record.linkedBy) }),
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

/**
 * A JSON column as row properties: one when it fits a property, else `MAX_PROPERTY_CHARS`
 * pieces (`column`, `columnPart1`, ...); their count in `columnParts` either way, so that a
 * row merged over a longer earlier value ('Merge', `put`) reads only its own pieces.
 */
function splitJson(column: JsonColumn, value: unknown): Partial<AccountRow> {
  const text = JSON.stringify(value);
  if (text.length <= MAX_PROPERTY_CHARS) {
    return { [column]: text, [`${column}Parts`]: 1 } as Partial<AccountRow>;
  }
  const row: Record<string, string | number> = {};
  let start = 0;
  let part = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + MAX_PROPERTY_CHARS);
    // A piece never ends between the two halves of a surrogate pair (each piece stays valid UTF-16).
    if (end < text.length && /[\ud800-\udbff]/.test(text.charAt(end - 1))) end -= 1;
    row[part === 0 ? column : `${column}Part${part}`] = text.slice(start, end);
    start = end;
    part += 1;
  }
  row[`${column}Parts`] = part;
  return row as Partial<AccountRow>;
}

/** A JSON column's text, from one property or from its pieces; undefined when a piece is missing. */
function joinJson(row: AccountRow, column: JsonColumn): string | undefined {
  const parts = row[`${column}Parts`];
  if (typeof parts !== 'number' || parts <= 1) return row[column];
  const pieces = [row[column]];
  for (let part = 1; part < parts; part += 1) pieces.push(row[`${column}Part${part}`]);
  return pieces.every((piece) => typeof piece === 'string') ? pieces.join('') : undefined;
}

function readGroups(text: string | undefined): string[] {
  const parsed = parseJson(text);
  return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
}

function readUnconfirmed(text: string | undefined): Pick<AccountRecord, 'unconfirmedGroups'> {
  const groups = readGroups(text);
  return groups.length === 0 ? {} : { unconfirmedGroups: groups };
}

function readLostWrites(text: string | undefined): Pick<AccountRecord, 'lostWrites'> {
  const parsed = parseJson(text);
  if (!Array.isArray(parsed)) return {};
  const writes = parsed.filter(isLostWrite);
  return writes.length === 0 ? {} : { lostWrites: writes };
}

function readLostEnabledWrite(text: string | undefined): Pick<AccountRecord, 'lostEnabledWrite'> {
  const parsed = parseJson(text) as Record<string, unknown> | undefined;
  if (typeof parsed !== 'object' || parsed === null || !isSentWrite(parsed)) return {};
  return parsed.change === 'account locked' || parsed.change === 'account unlocked'
    ? { lostEnabledWrite: parsed as unknown as LostEnabledWrite }
    : {};
}

function isLostWrite(value: unknown): value is LostWrite {
  if (typeof value !== 'object' || value === null) return false;
  const write = value as Record<string, unknown>;
  return (
    (write.change === 'member added' || write.change === 'member removed') &&
    typeof write.groupId === 'string' &&
    typeof write.groupName === 'string' &&
    isSentWrite(write)
  );
}

function isSentWrite(write: Record<string, unknown>): boolean {
  return (
    typeof write.requestId === 'string' &&
    typeof write.step === 'number' &&
    typeof write.at === 'string' &&
    typeof write.notInPlaceBefore === 'boolean'
  );
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

function readLinkedBy(text: string | undefined): Pick<AccountRecord, 'linkedBy'> {
  const parsed = parseJson(text) as Record<string, unknown> | undefined;
  if (typeof parsed !== 'object' || parsed === null) return {};
  const { byName, reason, at, fromTargetId } = parsed;
  if ([byName, reason, at, fromTargetId].some((value) => typeof value !== 'string')) return {};
  return {
    linkedBy: {
      byName: byName as string,
      reason: reason as string,
      at: at as string,
      fromTargetId: fromTargetId as string,
    },
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
