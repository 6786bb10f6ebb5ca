import type { TableClient } from '@azure/data-tables';
import type {
  ConnectorState,
  ConnectorStateStore,
  ImportState,
  ReconciliationState,
  StatusCheckState,
  UserGroupsVerdict,
} from './connector-states';
import { ProvisioningError } from '../domain/errors';
import { keptVerdictAfter } from '../domain/user-groups-verdict';
import { EnsuredTable } from './ensured-table';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';

const ROW_KEY = 'state';
/** Tries of a verdict's conditional write before giving up (other writes change the row). */
const VERDICT_WRITE_ATTEMPTS = 5;

interface StateRow {
  lastStatusCheck?: string;
  lastImport?: string;
  lastReconciliation?: string;
  userGroups?: string;
}

/**
 * Connector states in Table Storage: PartitionKey the connector (encoded), RowKey `state`;
 * each part a JSON column merged on its own, so a status check, an import, a
 * reconciliation and a verdict on the user's groups never overwrite each other's record.
 */
export class TableConnectorStates implements ConnectorStateStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async read(connectors: readonly string[]): Promise<Map<string, ConnectorState>> {
    const states = new Map<string, ConnectorState>();
    await Promise.all(
      connectors.map(async (name) => {
        const row = await this.row(name, 'read the connector states');
        states.set(name, {
          ...(row.lastStatusCheck === undefined
            ? {}
            : { lastStatusCheck: JSON.parse(row.lastStatusCheck) as StatusCheckState }),
          ...(row.lastImport === undefined
            ? {}
            : { lastImport: JSON.parse(row.lastImport) as ImportState }),
          ...(row.lastReconciliation === undefined
            ? {}
            : {
                lastReconciliation: JSON.parse(row.lastReconciliation) as ReconciliationState,
              }),
          ...(row.userGroups === undefined ? {} : { userGroups: verdictOf(row) }),
        });
      }),
    );
    return states;
  }

  recordStatusCheck(connector: string, state: StatusCheckState): Promise<void> {
    return this.merge(connector, { lastStatusCheck: JSON.stringify(state) });
  }

  recordImport(connector: string, state: ImportState): Promise<void> {
    return this.merge(connector, { lastImport: JSON.stringify(state) });
  }

  recordReconciliation(connector: string, state: ReconciliationState): Promise<void> {
    return this.merge(connector, { lastReconciliation: JSON.stringify(state) });
  }

  async readUserGroups(connector: string): Promise<UserGroupsVerdict | undefined> {
    const row = await this.row(connector, "read what the connector learned of the user's groups");
    return verdictOf(row);
  }

  /**
   * Keeps the verdict as {@link keptVerdictAfter} says against the one kept: written only
   * over the row as read (etag; a row another write changed meanwhile is read again), so
   * an older verdict written late, or a compatibility run's `complete`, never replaces a
   * verdict it must not (a connector's `cut`, a newer one).
   */
  async recordUserGroups(connector: string, verdict: UserGroupsVerdict): Promise<void> {
    const operation = "keep what the connector learned of the user's groups";
    const client = await this.table.client();
    const partitionKey = encodeTableKey(connector);
    for (let attempt = 0; attempt < VERDICT_WRITE_ATTEMPTS; attempt++) {
      const row = await this.row(connector, operation);
      const kept = verdictOf(row);
      const next = keptVerdictAfter(kept, verdict);
      if (next === kept) return;
      const entity = { partitionKey, rowKey: ROW_KEY, userGroups: JSON.stringify(next) };
      try {
        if (row.etag === undefined) await client.createEntity(entity);
        else await client.updateEntity(entity, 'Merge', { etag: row.etag });
        return;
      } catch (error) {
        const status = storageStatus(error);
        if (status !== 409 && status !== 412) throw storageFailure(operation, error);
      }
    }
    throw new ProvisioningError(
      'INTERNAL_ERROR',
      `storage: could not ${operation} (the row kept changing under ${VERDICT_WRITE_ATTEMPTS} writes)`,
      { retryable: true },
    );
  }

  /** The connector's row (with its etag); empty when it has none yet. */
  private async row(connector: string, operation: string): Promise<StateRow & { etag?: string }> {
    const client = await this.table.client();
    try {
      return await client.getEntity<StateRow>(encodeTableKey(connector), ROW_KEY);
    } catch (error) {
      if (storageStatus(error) !== 404) throw storageFailure(operation, error);
      return {};
    }
  }

  private async merge(connector: string, columns: StateRow): Promise<void> {
    const client = await this.table.client();
    await guardStorage('record the connector state', () =>
      client.upsertEntity(
        { partitionKey: encodeTableKey(connector), rowKey: ROW_KEY, ...columns },
        'Merge',
      ),
    );
  }
}

/** The row's kept verdict on the user's `groups` attribute, when it has one. */
function verdictOf(row: StateRow): UserGroupsVerdict | undefined {
  return row.userGroups === undefined
    ? undefined
    : (JSON.parse(row.userGroups) as UserGroupsVerdict);
}
