import { createHash } from 'node:crypto';
import { odata, type TableClient, type TableEntityResult } from '@azure/data-tables';
import {
  driftKey,
  isDriftType,
  subjectDetailsOf,
  type DriftFinding,
  type DriftSubjectDetails,
} from '../domain/drift-finding';
import { ProvisioningError } from '../domain/errors';
import { emptyTally, type DriftTally } from '../domain/reconciliation-result';
import { accountFilter, ACCOUNT_IDS_AS_GIVEN, type AccountKeys } from './account-keys';
import { EnsuredTable } from './ensured-table';
import type {
  DriftFindingStore,
  DriftPage,
  DriftQuery,
  FindingChange,
  StoredFinding,
} from './drift-findings';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { readPage } from './table-page';
import { decodeTableKey, encodeTableKey } from './table-key';
import { submitTransaction, type TableAction } from './table-transaction';

/**
 * RowKey prefixes: open findings sort before closed ones ('o' < 'x'); a subject's claim
 * sorts before both, outside the report's ranges.
 */
const CLAIM = 'k~';
const OPEN = 'o~';
const CLOSED = 'x~';
/** A finding's version: its row's prefix, whether it holds its subject's claim, its ETag. */
const CLAIMED = 'k';
const UNCLAIMED = '-';
/** Azure Table Storage: at most 100 operations per entity group transaction. */
const MAX_BATCH = 100;
/**
 * How many times a finding is written before giving up, each time after reading and judging
 * it again: passes that overlap are a few at most (a run, its retry, a restore).
 */
const ATTEMPTS = 5;

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
  /** An open finding written with its subject's claim (rows written before claims have none). */
  claimed?: boolean;
  /** The account's key (account-keys.ts), beside its ID; absent in rows written before. */
  accountKey?: string;
}

/**
 * Drift findings in Table Storage: PartitionKey the connector, RowKey `o~<id>` while open and
 * `x~<id>` once closed, so a run reads the open ones by key range and the report lists open
 * findings first. A finding id starts with its inverted first-seen time: newest first.
 *
 * One open finding per subject (its type, account and group: {@link driftKey}): an open
 * finding is created together with its subject's claim, `k~<digest of the subject>` naming
 * it, in one transaction, and the claim is deleted with the finding's open row when it
 * closes. Two runs that overlap and find the same new drift cannot both create it: the
 * second meets the claim, reads the finding that holds it and judges that one instead.
 */
export class TableDriftFindings implements DriftFindingStore {
  private readonly table: EnsuredTable;

  /** `keys`: the connectors' canonical forms of account IDs (default: each ID as it is). */
  constructor(
    client: TableClient,
    private readonly keys: AccountKeys = ACCOUNT_IDS_AS_GIVEN,
  ) {
    this.table = new EnsuredTable(client);
  }

  async open(connector: string): Promise<StoredFinding[]> {
    const client = await this.table.client();
    const filter = odata`PartitionKey eq ${encodeTableKey(connector)} and RowKey ge ${OPEN} and RowKey lt ${'o~\uffff'}`;
    return guardStorage('read the open drift findings', async () => {
      const findings: StoredFinding[] = [];
      for await (const row of client.listEntities<FindingRow>({ queryOptions: { filter } })) {
        findings.push(fromRow(row));
      }
      return findings;
    });
  }

  async get(connector: string, findingId: string): Promise<StoredFinding | undefined> {
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
    const page = await readPage<FindingRow, StoredFinding>(await this.table.client(), {
      filter: queryFilter(query, this.keys),
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

  /**
   * One query of the connector's partition: the open range, and the closed rows the job
   * found or closed. The filter on the closed rows is served by a scan of them (their keys
   * are first-seen times, not jobs): once per pass of a reconciliation, which reads the
   * whole target anyway; only four columns come back.
   */
  async tally(connector: string, jobId: string): Promise<DriftTally> {
    const client = await this.table.client();
    const filter = odata`PartitionKey eq ${encodeTableKey(connector)} and RowKey ge ${OPEN} and (RowKey lt ${'o~\uffff'} or firstJobId eq ${jobId} or closedJobId eq ${jobId})`;
    return guardStorage('count the drift findings of a reconciliation', async () => {
      const tally = emptyTally();
      const rows = client.listEntities<Pick<FindingRow, 'type' | 'firstJobId' | 'closedJobId'>>({
        queryOptions: { filter, select: ['RowKey', 'type', 'firstJobId', 'closedJobId'] },
      });
      for await (const row of rows) {
        const type = isDriftType(row.type) ? row.type : 'unlinkedMember';
        const open = (row.rowKey ?? '').startsWith(OPEN);
        if (open) tally.open[type] += 1;
        if (row.firstJobId === jobId) tally.found[type] += 1;
        if (!open && row.closedJobId === jobId) tally.closed[type] += 1;
      }
      return tally;
    });
  }

  async save(changes: readonly FindingChange[]): Promise<DriftFinding[]> {
    const client = await this.table.client();
    const byPartition = new Map<string, Planned[]>();
    // A transaction may name an entity once: the last change of a finding wins.
    const latest = new Map(
      changes.map((change) => [`${change.connector}\u0000${change.findingId}`, change]),
    );
    for (const change of latest.values()) {
      const target = change.judge(change.read);
      if (target === undefined) continue;
      const planned = { change, target, actions: actionsOf(change.read, target, this.keys) };
      const partitionKey = encodeTableKey(change.connector);
      byPartition.set(partitionKey, [...(byPartition.get(partitionKey) ?? []), planned]);
    }
    const stored: DriftFinding[] = [];
    for (const planned of byPartition.values()) {
      let batch: Planned[] = [];
      let rows = new Set<string>();
      for (const one of planned) {
        // A transaction names a row once: two new findings of one subject claim one row.
        const keys = one.actions.map(rowKeyOfAction);
        if (rows.size + keys.length > MAX_BATCH || keys.some((key) => rows.has(key))) {
          stored.push(...(await this.submit(client, batch)));
          batch = [];
          rows = new Set();
        }
        batch.push(one);
        for (const key of keys) rows.add(key);
      }
      stored.push(...(await this.submit(client, batch)));
    }
    return stored;
  }

  /**
   * One transaction, each action over the version its finding was judged on. When a
   * finding changed since (the transaction fails as a whole, not saying which), each
   * finding is written on its own: those that did not change as judged, the others read
   * again and judged again.
   */
  private async submit(client: TableClient, batch: readonly Planned[]): Promise<DriftFinding[]> {
    if (batch.length === 0) return [];
    try {
      await submitTransaction(
        client,
        batch.flatMap((planned) => planned.actions),
      );
      return batch.map((planned) => planned.target);
    } catch (error) {
      if (!isConflict(error)) throw storageFailure('save drift findings', error);
    }
    const stored: DriftFinding[] = [];
    for (const planned of batch) {
      const written = await this.writeOne(client, planned);
      if (written !== undefined) stored.push(written);
    }
    return stored;
  }

  /** One finding, judged again on a fresh copy each time another pass changed it first. */
  private async writeOne(client: TableClient, planned: Planned): Promise<DriftFinding | undefined> {
    const { change } = planned;
    let { target, actions } = planned;
    for (let attempt = 1; ; attempt++) {
      try {
        await submitTransaction(client, actions);
        return target;
      } catch (error) {
        if (!isConflict(error)) throw storageFailure('save a drift finding', error);
      }
      if (attempt === ATTEMPTS) {
        throw new ProvisioningError(
          'DRIFT_FINDING_CONTENDED',
          `drift finding "${change.findingId}" of connector "${change.connector}" was changed by another reconciliation or restore each of the ${ATTEMPTS} times it was read again: not stored`,
          { object: change.findingId, retryable: true },
        );
      }
      // A finding this pass found new, not stored under its id: the open finding of its
      // subject, when another pass created one first.
      const fresh =
        (await this.get(change.connector, change.findingId)) ??
        (await this.claimHolder(client, target));
      const again = change.judge(fresh);
      if (again === undefined) return undefined;
      target = again;
      actions = actionsOf(fresh, again, this.keys);
    }
  }

  /** The open finding that holds the claim of this finding's subject, if one does. */
  private async claimHolder(
    client: TableClient,
    finding: DriftFinding,
  ): Promise<StoredFinding | undefined> {
    let holder: string;
    try {
      const claim = await client.getEntity<{ findingId: string }>(
        encodeTableKey(finding.connector),
        claimKeyOf(finding),
      );
      holder = claim.findingId;
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read a drift finding', error);
    }
    return this.get(finding.connector, holder);
  }
}

/** A change as judged on the copy it was last judged on, and the actions that store it. */
interface Planned {
  change: FindingChange;
  target: DriftFinding;
  actions: TableAction[];
}

/**
 * How a finding judged on `base` is stored: a new one created with its subject's claim
 * (never over one stored since, nor beside another open finding of its subject), a changed
 * one replaced at the version read, a closed one moved from its open row, deleted at the
 * version read, to its closed row, its claim deleted with it.
 */
function actionsOf(
  base: StoredFinding | undefined,
  target: DriftFinding,
  keys: AccountKeys,
): TableAction[] {
  const partitionKey = encodeTableKey(target.connector);
  const row = (claimed: boolean) => ({
    partitionKey,
    rowKey: rowKeyOf(target),
    ...toRow(target),
    ...(target.accountId === undefined
      ? {}
      : { accountKey: keys.keyOf(target.connector, target.accountId) }),
    ...(claimed && target.status === 'open' ? { claimed: true } : {}),
  });
  const read = base?.version === undefined ? undefined : versionOf(base.version, target.findingId);
  if (read === undefined) {
    if (target.status !== 'open') return [['create', row(false)]];
    const claim = { partitionKey, rowKey: claimKeyOf(target), findingId: target.findingId };
    return [
      ['create', row(true)],
      ['create', claim],
    ];
  }
  if (read.rowKey === rowKeyOf(target)) {
    return [['update', row(read.claimed), 'Replace', { etag: read.etag }]];
  }
  if (target.status === 'closed') {
    return [
      ['delete', { partitionKey, rowKey: read.rowKey }, { etag: read.etag }],
      ['create', row(false)],
      ...(read.claimed
        ? [['delete', { partitionKey, rowKey: claimKeyOf(target) }, { etag: '*' }] as TableAction]
        : []),
    ];
  }
  throw new ProvisioningError(
    'INTERNAL_ERROR',
    `drift finding "${target.findingId}": a closed finding is never opened again`,
    { object: target.findingId },
  );
}

/**
 * A finding's version: the row it was read from (open or closed), whether it holds its
 * subject's claim, and that row's ETag. The row's prefix is two characters (`o~`, `x~`),
 * the claim's mark one (absent from versions read before claims: an ETag starts `W/`).
 */
function versionOf(
  version: string,
  findingId: string,
): { rowKey: string; etag: string; claimed: boolean } | undefined {
  const prefix = version.slice(0, 2);
  if (prefix !== OPEN && prefix !== CLOSED) return undefined;
  const mark = version.slice(2, 3);
  const marked = mark === CLAIMED || mark === UNCLAIMED;
  return {
    rowKey: `${prefix}${encodeTableKey(findingId)}`,
    etag: version.slice(marked ? 3 : 2),
    claimed: mark === CLAIMED,
  };
}

/** The RowKey of a subject's claim: a digest of its identity, one per subject. */
function claimKeyOf(finding: DriftFinding): string {
  return `${CLAIM}${createHash('sha256').update(driftKey(finding)).digest('hex')}`;
}

function rowKeyOfAction(action: TableAction): string {
  return String(action[1].rowKey);
}

/** Another pass changed the finding first: its row moved (404), exists (409) or changed (412). */
function isConflict(error: unknown): boolean {
  const status = storageStatus(error);
  return status === 404 || status === 409 || status === 412;
}

function rowKeyOf(finding: Pick<DriftFinding, 'status' | 'findingId'>): string {
  return `${finding.status === 'open' ? OPEN : CLOSED}${encodeTableKey(finding.findingId)}`;
}

function queryFilter(query: DriftQuery, keys: AccountKeys): string {
  const clauses = [odata`PartitionKey eq ${encodeTableKey(query.connector)}`];
  // Claims are no findings: they sort before every finding's row.
  if (query.status === undefined) clauses.push(odata`RowKey ge ${OPEN}`);
  if (query.status === 'open') clauses.push(odata`RowKey ge ${OPEN} and RowKey lt ${'o~\uffff'}`);
  if (query.status === 'closed')
    clauses.push(odata`RowKey ge ${CLOSED} and RowKey lt ${'x~\uffff'}`);
  if (query.type !== undefined) clauses.push(odata`type eq ${query.type}`);
  if (query.accountId !== undefined) {
    clauses.push(accountFilter(keys, query.accountId, query.connector));
  }
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

function fromRow(row: TableEntityResult<FindingRow>): StoredFinding {
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
    ...(row.etag === undefined
      ? {}
      : {
          version: `${(row.rowKey ?? '').slice(0, 2)}${row.claimed === true ? CLAIMED : UNCLAIMED}${row.etag}`,
        }),
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
