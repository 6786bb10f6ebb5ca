import { odata } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentPurgeTimerHandler } from '../../../src/api/intent-purge-timer';
import { loadConfig } from '../../../src/config/app-config';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { journalEntriesOf } from '../../../src/domain/journal-entry';
import { silentLogger } from '../../../src/domain/logger';
import { buildServices } from '../../../src/runtime/build-services';
import { createInvocationContext } from '../../../src/runtime/local-host/invocation-context';
import { STEP_MARKER_PREFIX } from '../../../src/store/step-marker';
import { tableClient } from '../../../src/store/storage-clients';
import type { ActivityResult } from '../../../src/workflows/activity-result';
import { serviceActivities } from '../../../src/workflows/activities/service-activities';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/**
 * Step-commit markers (a row per commit, so that a commit run again writes nothing twice)
 * are purged by the daily timer that purges write intents, with the same retention: a
 * marker older than any request that could still run its commit again goes, a recent one
 * stays and still keeps a re-run of its commit from writing twice. Judged on the table.
 */
const CONNECTOR = 'hr';
const RETENTION_DAYS = 45;
/** The night of the purge: the first day kept is 2026-01-11. */
const PURGE_AT = '2026-02-25T04:15:00.000Z';
const OLD_AT = '2026-01-10T23:59:59.000Z';
const RECENT_AT = '2026-02-20T08:00:00.000Z';

let storage: TestStorage;
let services: WorkflowServices;
let activities: ReturnType<typeof serviceActivities>;

beforeAll(async () => {
  storage = await startTestStorage();
  const config = loadConfig(
    {
      PROVISIONING_CONNECTORS: JSON.stringify([
        {
          name: CONNECTOR,
          kind: 'scim',
          baseUrl: 'https://127.0.0.1:9/scim/v2/',
          auth: { type: 'bearer', tokenSecret: 'hr-token' },
        },
      ]),
    },
    connectorSettingsKinds(),
  );
  services = buildServices({ config, logger: silentLogger, storage: storage.connection });
  activities = serviceActivities(async () => services);
});
afterAll(() => storage.close());

function valueOf<T>(result: ActivityResult<T>): T {
  if (!result.ok) throw new Error(`the activity failed: ${result.error.message}`);
  return result.value;
}

/** A create step's commit for `accountId`, at orchestration time `at`, as a request records it. */
async function commitCreate(accountId: string, at: string): Promise<void> {
  const nowMs = Date.parse(at);
  const lease = valueOf(
    await activities.acquireAccountLease({
      connector: CONNECTOR,
      accountId,
      owner: `req-${accountId}`,
      nowMs,
      ttlMs: 300_000,
      likelyNew: true,
    }),
  );
  valueOf(
    await activities.recordStep({
      connector: CONNECTOR,
      accountId,
      owner: `req-${accountId}`,
      leaseExpiresAtMs: nowMs + 300_000,
      etag: lease.etag!,
      stored: null,
      entries: journalEntriesOf(
        { requestId: `req-${accountId}`, connector: CONNECTOR, accountId },
        0,
        [{ change: 'account created' }],
        at,
      ),
      update: { link: { targetId: `id-${accountId}`, linkedAt: at, createdAt: at } },
      release: false,
    }),
  );
}

/** The requests whose step markers the journal's table holds. */
async function markers(): Promise<string[]> {
  const client = tableClient(storage.connection, 'ProvisioningJournal');
  const requests: string[] = [];
  for await (const row of client.listEntities<{ requestId: string }>({
    queryOptions: {
      filter: odata`PartitionKey eq ${CONNECTOR} and RowKey ge ${STEP_MARKER_PREFIX} and RowKey lt ${`${STEP_MARKER_PREFIX}\uffff`}`,
    },
  })) {
    requests.push(row.requestId);
  }
  return requests.sort();
}

async function journal(): Promise<string[]> {
  const page = await services.journal.query({ connector: CONNECTOR, limit: 100 });
  return page.entries.map((entry) => `${entry.accountId} ${entry.change} at ${entry.at}`).sort();
}

describe('the purge of step-commit markers', () => {
  it('deletes a marker older than the retention and keeps a recent one, on the intents’ timer', async () => {
    await commitCreate('old', OLD_AT);
    await commitCreate('recent', RECENT_AT);
    expect(await markers()).toEqual(['req-old', 'req-recent']);

    const purge = intentPurgeTimerHandler(
      {
        services: async () => services,
        orchestrations: () => {
          throw new Error('the purge starts no orchestration');
        },
        now: () => new Date(PURGE_AT),
      },
      RETENTION_DAYS,
    );
    const counts = await purge(undefined, createInvocationContext('purge', silentLogger));

    expect(await markers()).toEqual(['req-recent']);
    expect(counts.markers).toBe(1);
    // The journal keeps every entry: only markers go.
    expect(await journal()).toEqual([
      `old account created at ${OLD_AT}`,
      `recent account created at ${RECENT_AT}`,
    ]);
    // The marker kept still does its work: the recent commit run again writes nothing twice.
    await commitCreate('recent', RECENT_AT);
    expect(await journal()).toHaveLength(2);
    expect(await markers()).toEqual(['req-recent']);
  });
});
