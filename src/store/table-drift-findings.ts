import { randomUUID } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';
import { odata } from '@azure/data-tables';
import { isDriftType, type DriftFinding } from '../domain/drift-finding';
import { ProvisioningError } from '../domain/errors';
import { emptyTally, type DriftTally } from '../domain/reconciliation-result';
import { ACCOUNT_IDS_AS_GIVEN, type AccountKeys } from './account-keys';
import {
  claimKeyOf,
  CLOSED,
  fromRow,
  OPEN,
  queryFilter,
  rowKeyOf,
  toRow,
  versionOf,
  type FindingRow,
} from './drift-finding-rows';
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
import { encodeTableKey } from './table-key';
import { submitTransaction, type TableAction } from './table-transaction';

/** Azure Table Storage: at most 100 operations per entity group transaction. */
const MAX_BATCH = 100;
/**
 * How many times a finding is written before giving up, each time after reading and judging
 * it again: passes that overlap are a few at most (a run, its retry, a restore).
 */
const ATTEMPTS = 5;

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
    const writeId = randomUUID();
    const byPartition = new Map<string, Planned[]>();
    // A transaction may name an entity once: the last change of a finding wins.
    const latest = new Map(
      changes.map((change) => [`${change.connector}\u0000${change.findingId}`, change]),
    );
    for (const change of latest.values()) {
      const target = change.judge(change.read);
      if (target === undefined) continue;
      const actions = actionsOf(change.read, target, this.keys, writeId);
      const planned = { change, target, actions, writeId };
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
    const { change, writeId } = planned;
    let { target, actions } = planned;
    for (let attempt = 1; ; attempt++) {
      try {
        await submitTransaction(client, actions);
        return target;
      } catch (error) {
        if (!isConflict(error)) throw storageFailure('save a drift finding', error);
      }
      // Its own write, applied though answered with an error, that the retry met: stored.
      if (await this.wroteIt(client, target, writeId)) return target;
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
      actions = actionsOf(fresh, again, this.keys, writeId);
    }
  }

  /** Whether the finding's row is as this save wrote it (its `writeId`). */
  private async wroteIt(
    client: TableClient,
    target: DriftFinding,
    writeId: string,
  ): Promise<boolean> {
    try {
      const row = await client.getEntity<Pick<FindingRow, 'writeId'>>(
        encodeTableKey(target.connector),
        rowKeyOf(target),
        { queryOptions: { select: ['writeId'] } },
      );
      return row.writeId === writeId;
    } catch (error) {
      if (storageStatus(error) === 404) return false;
      throw storageFailure('read a drift finding', error);
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
  /** The save's id, written on every row it writes. */
  writeId: string;
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
  writeId: string,
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
    writeId,
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

function rowKeyOfAction(action: TableAction): string {
  return String(action[1].rowKey);
}

/** Another pass changed the finding first: its row moved (404), exists (409) or changed (412). */
function isConflict(error: unknown): boolean {
  const status = storageStatus(error);
  return status === 404 || status === 409 || status === 412;
}
