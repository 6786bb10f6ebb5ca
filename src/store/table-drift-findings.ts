import {
  odata,
  type TableClient,
  type TableEntityResult,
  type TransactionAction,
} from '@azure/data-tables';
import {
  isDriftType,
  subjectDetailsOf,
  type DriftFinding,
  type DriftSubjectDetails,
} from '../domain/drift-finding';
import { EnsuredTable } from './ensured-table';
import type { DriftFindingStore, DriftPage, DriftQuery } from './drift-findings';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { readPage } from './table-page';
import { decodeTableKey, encodeTableKey } from './table-key';
import { submitTransaction } from './table-transaction';

/** RowKey prefixes: open findings sort before closed ones ('o' < 'x'). */
const OPEN = 'o~';
const CLOSED = 'x~';
/** Azure Table Storage: at most 100 operations per entity group transaction. */
const MAX_BATCH = 100;

interface FindingRow extends DriftSubjectDetails {
  findingId: string;
  type: string;
  status: string;
  targetId: string;
  firstSeen: string;
  lastConfirmed: string;
  closedAt?: string;
  firstJobId: string;
  lastJobId: string;
  closedJobId?: string;
  closedBecause?: string;
  /** JSON array of strings. */
  evidence: string;
  restoreRequestId?: string;
  restoreAt?: string;
}

/**
 * Drift findings in Table Storage: PartitionKey the connector, RowKey `o~<id>` while open and
 * `x~<id>` once closed, so a run reads the open ones by key range and the report lists open
 * findings first. A finding id starts with its inverted first-seen time: newest first.
 */
export class TableDriftFindings implements DriftFindingStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async open(connector: string): Promise<DriftFinding[]> {
    const client = await this.table.client();
    const filter = odata`PartitionKey eq ${encodeTableKey(connector)} and RowKey ge ${OPEN} and RowKey lt ${'o~\uffff'}`;
    return guardStorage('read the open drift findings', async () => {
      const findings: DriftFinding[] = [];
      for await (const row of client.listEntities<FindingRow>({ queryOptions: { filter } })) {
        findings.push(fromRow(row));
      }
      return findings;
    });
  }

  async get(connector: string, findingId: string): Promise<DriftFinding | undefined> {
    const client = await this.table.client();
    for (const prefix of [OPEN, CLOSED]) {
      try {
        const row = await client.getEntity<FindingRow>(
          encodeTableKey(connector),
          `${prefix}${encodeTableKey(findingId)}`,
        );
        return fromRow(row);
      } catch (error) {
        if (storageStatus(error) !== 404) {
          throw storageFailure('read a drift finding', error);
        }
      }
    }
    return undefined;
  }

  async query(query: DriftQuery): Promise<DriftPage> {
    const page = await readPage<FindingRow, DriftFinding>(await this.table.client(), {
      filter: queryFilter(query),
      limit: query.limit,
      defaultLimit: 100,
      maxLimit: 500,
      continuationToken: query.continuationToken,
      of: 'the drift report',
      fromRow,
    });
    return {
      findings: page.entries,
      ...(page.continuationToken === undefined
        ? {}
        : { continuationToken: page.continuationToken }),
    };
  }

  async save(findings: readonly DriftFinding[]): Promise<void> {
    const client = await this.table.client();
    const byPartition = new Map<string, TransactionAction[][]>();
    // A transaction may name an entity once: the last state of a finding wins.
    const latest = new Map(
      findings.map((finding) => [`${finding.connector}\u0000${finding.findingId}`, finding]),
    );
    for (const finding of latest.values()) {
      const partitionKey = encodeTableKey(finding.connector);
      const row = { partitionKey, rowKey: rowKeyOf(finding), ...toRow(finding) };
      // A close is its closed row and the removal of its open row, in one transaction.
      const actions: TransactionAction[] = [['upsert', row, 'Replace']];
      if (finding.status === 'closed') {
        const open = `${OPEN}${encodeTableKey(finding.findingId)}`;
        actions.push(['delete', { partitionKey, rowKey: open }]);
      }
      const groups = byPartition.get(partitionKey) ?? [];
      groups.push(actions);
      byPartition.set(partitionKey, groups);
    }
    for (const groups of byPartition.values()) {
      let batch: TransactionAction[] = [];
      for (const actions of groups) {
        if (batch.length + actions.length > MAX_BATCH) {
          await this.submit(client, batch);
          batch = [];
        }
        batch.push(...actions);
      }
      await this.submit(client, batch);
    }
  }

  /**
   * One transaction; when it fails because an open row to delete is gone already (a retried
   * run closed it before), the actions are applied one by one, that delete ignored.
   */
  private async submit(client: TableClient, actions: TransactionAction[]): Promise<void> {
    if (actions.length === 0) return;
    try {
      await submitTransaction(client, actions);
      return;
    } catch (error) {
      if (storageStatus(error) !== 404) {
        throw storageFailure('save drift findings', error);
      }
    }
    for (const [kind, entity] of actions) {
      await guardStorage('save a drift finding', async () => {
        try {
          if (kind === 'delete') await client.deleteEntity(entity.partitionKey, entity.rowKey);
          else await client.upsertEntity(entity, 'Replace');
        } catch (error) {
          if (!(kind === 'delete' && storageStatus(error) === 404)) throw error;
        }
      });
    }
  }
}

function rowKeyOf(finding: Pick<DriftFinding, 'status' | 'findingId'>): string {
  return `${finding.status === 'open' ? OPEN : CLOSED}${encodeTableKey(finding.findingId)}`;
}

function queryFilter(query: DriftQuery): string {
  const clauses = [odata`PartitionKey eq ${encodeTableKey(query.connector)}`];
  if (query.status === 'open') clauses.push(odata`RowKey ge ${OPEN} and RowKey lt ${'o~\uffff'}`);
  if (query.status === 'closed')
    clauses.push(odata`RowKey ge ${CLOSED} and RowKey lt ${'x~\uffff'}`);
  if (query.type !== undefined) clauses.push(odata`type eq ${query.type}`);
  if (query.accountId !== undefined) clauses.push(odata`accountId eq ${query.accountId}`);
  if (query.groupId !== undefined) clauses.push(odata`groupId eq ${query.groupId}`);
  return clauses.join(' and ');
}

function toRow(finding: DriftFinding): FindingRow {
  return {
    findingId: finding.findingId,
    type: finding.type,
    status: finding.status,
    targetId: finding.targetId,
    ...subjectDetailsOf(finding),
    firstSeen: finding.firstSeen,
    lastConfirmed: finding.lastConfirmed,
    ...optional('closedAt', finding.closedAt),
    firstJobId: finding.firstJobId,
    lastJobId: finding.lastJobId,
    ...optional('closedJobId', finding.closedJobId),
    ...optional('closedBecause', finding.closedBecause),
    evidence: JSON.stringify(finding.evidence),
    ...optional('restoreRequestId', finding.restore?.requestId),
    ...optional('restoreAt', finding.restore?.at),
  };
}

function fromRow(row: TableEntityResult<FindingRow>): DriftFinding {
  return {
    findingId: row.findingId,
    connector: decodeTableKey(row.partitionKey ?? ''),
    type: isDriftType(row.type) ? row.type : 'unlinkedMember',
    status: row.status === 'closed' ? 'closed' : 'open',
    targetId: row.targetId,
    ...subjectDetailsOf(row),
    firstSeen: row.firstSeen,
    lastConfirmed: row.lastConfirmed,
    ...optional('closedAt', row.closedAt),
    firstJobId: row.firstJobId,
    lastJobId: row.lastJobId,
    ...optional('closedJobId', row.closedJobId),
    ...optional('closedBecause', row.closedBecause),
    evidence: readEvidence(row.evidence),
    ...(row.restoreRequestId === undefined || row.restoreAt === undefined
      ? {}
      : { restore: { requestId: row.restoreRequestId, at: row.restoreAt } }),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

function readEvidence(text: string | undefined): string[] {
  try {
    const parsed = JSON.parse(text ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}
