import { odata, type TableClient, type TableEntity } from '@azure/data-tables';
import { TargetMirror } from '../domain/target-mirror';
import type { MemberKind, ViewMember } from '../domain/target-view';
import { EnsuredTable } from './ensured-table';
import type {
  KeptMirror,
  ReconciliationCursors,
  ReconciliationProgress,
  ReconciliationStateStore,
} from './reconciliation-state';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { upsertInBatches } from './table-batches';
import { decodeTableKey, encodeTableKey } from './table-key';

/** Row kinds in a connector's partition. */
const MEMBERS = 'm~';
const ACCOUNT = 'a~';
const CURSORS = '~cursors';
const PROGRESS_PARTITION = '~progress';
/** A table property holds 32K UTF-16 characters: member lists are cut into rows below that. */
const CHUNK_CHARS = 30_000;

const KIND_CODES: Record<MemberKind, string> = { user: 'u', group: 'g', other: 'o' };
const CODE_KINDS: Record<string, MemberKind> = { u: 'user', g: 'group', o: 'other' };

interface MembersRow {
  /** JSON: [key, kind code, name?][] */
  members: string;
}

interface AccountRow {
  key: string;
  name?: string;
  enabled?: boolean;
}

/**
 * Reconciliation's state in Table Storage: PartitionKey the connector; RowKey
 * `m~<group>~<n>` for the n-th row of a managed group's members, `a~<id>` for an account,
 * `~cursors` for the delta links (written last, so a copy is never ahead of its cursors);
 * progress of running jobs in partition `~progress`.
 */
export class TableReconciliationState implements ReconciliationStateStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async load(connector: string): Promise<KeptMirror> {
    const client = await this.table.client();
    const mirror = new TargetMirror();
    const storedChunks = new Map<string, number>();
    let cursors: ReconciliationCursors | undefined;
    const filter = odata`PartitionKey eq ${encodeTableKey(connector)}`;
    await guardStorage('read the reconciliation state', async () => {
      for await (const row of client.listEntities<Record<string, unknown>>({
        queryOptions: { filter },
      })) {
        const rowKey = row.rowKey ?? '';
        if (rowKey === CURSORS) cursors = readCursors(row);
        else if (rowKey.startsWith(ACCOUNT)) {
          const id = decodeTableKey(rowKey.slice(ACCOUNT.length));
          const account = row as unknown as AccountRow;
          mirror.accounts.set(id, {
            id,
            key: account.key,
            ...(account.name === undefined ? {} : { name: account.name }),
            ...(typeof account.enabled === 'boolean' ? { enabled: account.enabled } : {}),
          });
        } else if (rowKey.startsWith(MEMBERS)) {
          const [groupKey = ''] = rowKey.slice(MEMBERS.length).split('~');
          const groupId = decodeTableKey(groupKey);
          const members = mirror.members.get(groupId) ?? new Map<string, ViewMember>();
          mirror.members.set(groupId, members);
          for (const [key, code, name] of readMembers((row as unknown as MembersRow).members)) {
            members.set(key, {
              kind: CODE_KINDS[code] ?? 'other',
              ...(name === undefined ? {} : { name }),
            });
          }
          storedChunks.set(groupId, (storedChunks.get(groupId) ?? 0) + 1);
        }
      }
    });
    return { mirror, storedChunks, ...(cursors === undefined ? {} : { cursors }) };
  }

  async save(connector: string, kept: KeptMirror, cursors: ReconciliationCursors): Promise<void> {
    const client = await this.table.client();
    const partitionKey = encodeTableKey(connector);
    const { mirror } = kept;
    const upserts: TableEntity<Record<string, unknown>>[] = [];
    const deletes: string[] = [];
    for (const groupId of mirror.changedGroups) {
      const chunks = chunkMembers(mirror.members.get(groupId));
      chunks.forEach((members, index) =>
        upserts.push({ partitionKey, rowKey: membersRowKey(groupId, index), members }),
      );
      for (let index = chunks.length; index < (kept.storedChunks.get(groupId) ?? 0); index++) {
        deletes.push(membersRowKey(groupId, index));
      }
    }
    for (const id of mirror.changedAccounts) {
      const account = mirror.accounts.get(id);
      const rowKey = `${ACCOUNT}${encodeTableKey(id)}`;
      if (account === undefined) {
        deletes.push(rowKey);
        continue;
      }
      const row: AccountRow = {
        key: account.key,
        ...(account.name === undefined ? {} : { name: account.name }),
        ...(account.enabled === undefined ? {} : { enabled: account.enabled }),
      };
      upserts.push({ partitionKey, rowKey, ...row });
    }
    await guardStorage('write the reconciliation state', () =>
      upsertInBatches(client, upserts, 'Replace'),
    );
    for (const rowKey of deletes) {
      await guardStorage('write the reconciliation state', async () => {
        try {
          await client.deleteEntity(partitionKey, rowKey);
        } catch (error) {
          if (storageStatus(error) !== 404) throw error;
        }
      });
    }
    await guardStorage('keep the reconciliation cursors', () =>
      client.upsertEntity(
        {
          partitionKey,
          rowKey: CURSORS,
          jobId: cursors.jobId,
          savedAt: cursors.savedAt,
          ...(cursors.members === undefined ? {} : { members: cursors.members }),
          ...(cursors.accounts === undefined ? {} : { accounts: cursors.accounts }),
        },
        'Replace',
      ),
    );
  }

  async saveProgress(jobId: string, progress: ReconciliationProgress): Promise<void> {
    const client = await this.table.client();
    await guardStorage('record the reconciliation progress', () =>
      client.upsertEntity(
        { partitionKey: PROGRESS_PARTITION, rowKey: encodeTableKey(jobId), ...progress },
        'Replace',
      ),
    );
  }

  async progress(jobId: string): Promise<ReconciliationProgress | undefined> {
    const client = await this.table.client();
    try {
      const row = await client.getEntity<ReconciliationProgress>(
        PROGRESS_PARTITION,
        encodeTableKey(jobId),
      );
      return {
        phase: row.phase,
        groupsRead: row.groupsRead,
        accountsRead: row.accountsRead,
        at: row.at,
      };
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read the reconciliation progress', error);
    }
  }
}

function membersRowKey(groupId: string, index: number): string {
  return `${MEMBERS}${encodeTableKey(groupId)}~${String(index).padStart(5, '0')}`;
}

/** A member list as rows of JSON, each under a table property's size; one row for an empty list. */
function chunkMembers(members: Map<string, ViewMember> | undefined): string[] {
  if (members === undefined) return [];
  const chunks: string[] = [];
  let current: [string, string, string?][] = [];
  let length = 2;
  for (const [key, member] of members) {
    const entry: [string, string, string?] =
      member.name === undefined
        ? [key, KIND_CODES[member.kind]]
        : [key, KIND_CODES[member.kind], member.name];
    const size = JSON.stringify(entry).length + 1;
    if (current.length > 0 && length + size > CHUNK_CHARS) {
      chunks.push(JSON.stringify(current));
      current = [];
      length = 2;
    }
    current.push(entry);
    length += size;
  }
  chunks.push(JSON.stringify(current));
  return chunks;
}

function readMembers(text: string | undefined): [string, string, string?][] {
  try {
    const parsed = JSON.parse(text ?? '[]') as unknown;
    return Array.isArray(parsed)
      ? parsed.filter(
          (entry): entry is [string, string, string?] =>
            Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string',
        )
      : [];
  } catch {
    return [];
  }
}

function readCursors(row: Record<string, unknown>): ReconciliationCursors | undefined {
  if (typeof row.jobId !== 'string' || typeof row.savedAt !== 'string') return undefined;
  return {
    jobId: row.jobId,
    savedAt: row.savedAt,
    ...(typeof row.members === 'string' ? { members: row.members } : {}),
    ...(typeof row.accounts === 'string' ? { accounts: row.accounts } : {}),
  };
}
