import { odata } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/app-config';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { journalEntriesOf, type EffectiveChange } from '../../../src/domain/journal-entry';
import { silentLogger } from '../../../src/domain/logger';
import { buildServices } from '../../../src/runtime/build-services';
import { JOURNAL_ROWS_END } from '../../../src/store/account-row';
import { tableClient } from '../../../src/store/storage-clients';
import { journalRowsOf } from '../../../src/store/table-journal-store';
import { claimStepMarker, stepMarkerOf, stepMarkersOf } from '../../../src/store/step-marker';
import type { ActivityResult } from '../../../src/workflows/activity-result';
import type {
  RecordStepActivityInput,
  RequestEnd,
} from '../../../src/workflows/activities/activity-inputs';
import { serviceActivities } from '../../../src/workflows/activities/service-activities';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { metricsUnderTest } from '../../support/collected-metrics';

/**
 * A step's commit is idempotent under re-execution: Durable Functions runs an activity at
 * least once, and a restarted local host may run an episode again at a later orchestration
 * time, so the commit activity (recordStep) runs a second time with its entries stamped
 * with another time. The journal must hold each entry once and the record be as the first
 * run left it. Judged on the table itself, not on what the activity answers.
 */

let storage: TestStorage;
let services: WorkflowServices;
let activities: ReturnType<typeof serviceActivities>;
const measured = metricsUnderTest();

beforeAll(async () => {
  storage = await startTestStorage();
  services = buildServices({
    config: loadConfig({ PROVISIONING_CONNECTORS: '[]' }, connectorSettingsKinds()),
    logger: silentLogger,
    storage: storage.connection,
    meter: measured.meter,
  });
  activities = serviceActivities(async () => services);
});
afterAll(async () => {
  await measured.close();
  await storage.close();
});

const CONNECTOR = 'hr';
const NOW = Date.parse('2026-03-01T08:00:00.000Z');
const TTL = 300_000;
/** The first run's orchestration time, and the later one a re-run has. */
const FIRST_AT = '2026-03-01T08:00:05.000Z';
const RERUN_AT = '2026-03-01T08:00:09.000Z';

function valueOf<T>(result: ActivityResult<T>): T {
  if (!result.ok) throw new Error(`the activity failed: ${result.error.message}`);
  return result.value;
}

async function takeLease(accountId: string, nowMs = NOW) {
  return valueOf(
    await activities.acquireAccountLease({
      connector: CONNECTOR,
      accountId,
      owner: `req-${accountId}`,
      nowMs,
      ttlMs: TTL,
      likelyNew: true,
    }),
  );
}

/** The commit of a create step, as the orchestrator builds it at orchestration time `at`. */
function createCommit(
  accountId: string,
  at: string,
  version: { etag?: string },
  release = false,
): RecordStepActivityInput {
  return {
    connector: CONNECTOR,
    accountId,
    owner: `req-${accountId}`,
    leaseExpiresAtMs: NOW + TTL,
    ...version,
    stored: null,
    entries: journalEntriesOf(
      { requestId: `req-${accountId}`, connector: CONNECTOR, accountId },
      0,
      [{ change: 'account created' }],
      at,
    ),
    update: { link: { targetId: `id-${accountId}`, linkedAt: at, createdAt: at } },
    release,
  };
}

/** The account's journal rows as the table holds them (every row before the account rows). */
async function journalRows(accountId: string): Promise<{ rowKey: string; change: string }[]> {
  const client = tableClient(storage.connection, 'ProvisioningJournal');
  const rows: { rowKey: string; change: string }[] = [];
  for await (const row of client.listEntities<{ change: string }>({
    queryOptions: {
      filter: odata`PartitionKey eq ${CONNECTOR} and RowKey lt ${JOURNAL_ROWS_END} and accountId eq ${accountId}`,
    },
  })) {
    rows.push({ rowKey: row.rowKey!, change: row.change });
  }
  return rows;
}

/** The account's entries as GET /journal lists them, page by page. */
async function listed(accountId: string): Promise<string[]> {
  const changes: string[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await services.journal.query({
      connector: CONNECTOR,
      accountId,
      limit: 1,
      ...(continuationToken === undefined ? {} : { continuationToken }),
    });
    changes.push(...page.entries.map((entry) => `${entry.change} at ${entry.at}`));
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined);
  return changes;
}

describe('recordStep run again for the same step at a later orchestration time', () => {
  it('after its answer was lost: the journal holds the entry once, the record is the first run’s', async () => {
    const lease = await takeLease('ada');
    const version = { etag: lease.etag! };
    const first = valueOf(await activities.recordStep(createCommit('ada', FIRST_AT, version)));
    // The re-run has what the history had before the first run: the same version of the row.
    const again = valueOf(await activities.recordStep(createCommit('ada', RERUN_AT, version)));

    expect(await journalRows('ada')).toEqual([
      { rowKey: expect.stringMatching(/^2026-03-01T08:00:05\.000Z_/), change: 'account created' },
    ]);
    expect(await listed('ada')).toEqual([`account created at ${FIRST_AT}`]);
    const stored = await services.accounts.get(CONNECTOR, 'ada');
    expect(stored).toMatchObject({ targetId: 'id-ada', linkedAt: FIRST_AT, createdAt: FIRST_AT });
    expect(again.record).toEqual(stored);
    expect(first.record).toEqual(stored);
    // The lease is still the request's, at the row's current version: its next commit goes in one write.
    expect(again.etag).toEqual(first.etag);
  });

  it('after the lease was taken again since (a re-run episode): nothing doubles, and the release still happens', async () => {
    const lease = await takeLease('bob');
    valueOf(
      await activities.recordStep(createCommit('bob', FIRST_AT, { etag: lease.etag! }, true)),
    );
    // The lease activity ran again too: it takes the free lease once more, at a new version.
    const retaken = await takeLease('bob', NOW + 4_000);
    expect(retaken.record).toMatchObject({ linkedAt: FIRST_AT });
    const again = valueOf(
      await activities.recordStep(createCommit('bob', RERUN_AT, { etag: retaken.etag! }, true)),
    );

    expect(await journalRows('bob')).toHaveLength(1);
    expect(await listed('bob')).toEqual([`account created at ${FIRST_AT}`]);
    expect(again.etag).toBeUndefined();
    expect(await services.accounts.get(CONNECTOR, 'bob')).toMatchObject({
      targetId: 'id-bob',
      linkedAt: FIRST_AT,
    });
    // Released: another request takes the lease at once.
    expect(
      await services.accounts.acquire(CONNECTOR, 'bob', 'someone-else', NOW + 5_000, TTL),
    ).toMatchObject({ acquired: true });
  });

  it('without a known version of the row (the commit before it failed): nothing doubles', async () => {
    await takeLease('cy');
    valueOf(await activities.recordStep(createCommit('cy', FIRST_AT, {})));
    valueOf(await activities.recordStep(createCommit('cy', RERUN_AT, {})));

    expect(await journalRows('cy')).toHaveLength(1);
    expect(await services.accounts.get(CONNECTOR, 'cy')).toMatchObject({ linkedAt: FIRST_AT });
  });

  it('after a run that stopped part way: the re-run finishes it on the same rows', async () => {
    await takeLease('dee');
    const groups: EffectiveChange[] = ['g-1', 'g-2', 'g-3'].map((groupId) => ({
      change: 'member added',
      groupId,
    }));
    const entriesAt = (at: string) =>
      journalEntriesOf(
        { requestId: 'req-dee', connector: CONNECTOR, accountId: 'dee' },
        1,
        groups,
        at,
      );
    // What a first run killed after its marker and one entry leaves in the table.
    const client = tableClient(storage.connection, 'ProvisioningJournal');
    const marker = stepMarkerOf(entriesAt(FIRST_AT))!;
    expect(await claimStepMarker(client, marker)).toEqual({ done: false, at: FIRST_AT });
    const asGiven = (_connector: string, accountId: string) => accountId;
    await client.upsertEntity(journalRowsOf(entriesAt(FIRST_AT), asGiven)[0]!, 'Replace');

    valueOf(
      await activities.recordStep({
        connector: CONNECTOR,
        accountId: 'dee',
        owner: 'req-dee',
        leaseExpiresAtMs: NOW + TTL,
        stored: null,
        entries: entriesAt(RERUN_AT),
        update: {
          link: { targetId: 'id-dee', linkedAt: RERUN_AT },
          granted: ['g-1', 'g-2', 'g-3'],
          groupsAt: RERUN_AT,
        },
        release: false,
      }),
    );

    const rows = await journalRows('dee');
    expect(rows.map((row) => row.rowKey.slice(0, 24))).toEqual(Array(3).fill(FIRST_AT));
    expect((await services.accounts.get(CONNECTOR, 'dee'))?.assignedGroups).toEqual([
      'g-1',
      'g-2',
      'g-3',
    ]);
    // Done now: a third run writes nothing.
    expect(await claimStepMarker(client, marker)).toEqual({ done: true });
  });

  it('with more entries than one transaction holds: each once', async () => {
    const lease = await takeLease('eve');
    const groups = Array.from({ length: 150 }, (_, i) => `g-${String(i).padStart(3, '0')}`);
    const commit = (at: string): RecordStepActivityInput => ({
      connector: CONNECTOR,
      accountId: 'eve',
      owner: 'req-eve',
      leaseExpiresAtMs: NOW + TTL,
      etag: lease.etag!,
      stored: null,
      entries: journalEntriesOf(
        { requestId: 'req-eve', connector: CONNECTOR, accountId: 'eve' },
        0,
        groups.map((groupId) => ({ change: 'member added', groupId })),
        at,
      ),
      update: { link: { targetId: 'id-eve', linkedAt: at }, granted: groups, groupsAt: at },
      release: false,
    });
    valueOf(await activities.recordStep(commit(FIRST_AT)));
    valueOf(await activities.recordStep(commit(RERUN_AT)));

    const rows = await journalRows('eve');
    expect(rows).toHaveLength(150);
    expect(new Set(rows.map((row) => row.rowKey.slice(0, 24)))).toEqual(new Set([FIRST_AT]));
    expect((await services.accounts.get(CONNECTOR, 'eve'))?.assignedGroups).toHaveLength(150);
  });

  it('keeps a second, different commit of the same step (a step run again after a hold)', async () => {
    const lease = await takeLease('fay');
    const commit = (
      etag: string | undefined,
      groupId: string,
      at: string,
    ): RecordStepActivityInput => ({
      connector: CONNECTOR,
      accountId: 'fay',
      owner: 'req-fay',
      leaseExpiresAtMs: NOW + TTL,
      ...(etag === undefined ? {} : { etag }),
      stored: null,
      entries: journalEntriesOf(
        { requestId: 'req-fay', connector: CONNECTOR, accountId: 'fay' },
        1,
        [{ change: 'member added', groupId }],
        at,
      ),
      update: { granted: [groupId], groupsAt: at },
      release: false,
    });
    const first = valueOf(await activities.recordStep(commit(lease.etag, 'g-1', FIRST_AT)));
    valueOf(await activities.recordStep(commit(first.etag, 'g-2', RERUN_AT)));

    expect(await listed('fay')).toEqual([
      `member added at ${FIRST_AT}`,
      `member added at ${RERUN_AT}`,
    ]);
  });
});

describe("the request's end, written with its last step's commit, run again", () => {
  /** How many ends of `connector`'s requests the metrics counted (`provisioning.requests`). */
  async function endsCounted(connector: string): Promise<number> {
    const metric = (await measured.collect()).find((m) => m.name === 'provisioning.requests');
    return (metric?.points ?? [])
      .filter((point) => point.attributes['provisioning.connector'] === connector)
      .reduce((total, point) => total + (point.value ?? 0), 0);
  }

  function end(accountId: string, connector = CONNECTOR): RequestEnd {
    return {
      requestId: `req-${accountId}`,
      connector,
      accountId,
      actions: ['create'],
      status: 'succeeded',
      source: 'http',
      receivedAt: '2026-03-01T08:00:00.000Z',
      finishedAt: FIRST_AT,
      measures: { outcome: 'succeeded', steps: [] },
    };
  }

  async function indexed(accountId: string): Promise<string[]> {
    const page = await services.requests.query({ connector: CONNECTOR, accountId });
    return page.entries.map((entry) => `${entry.requestId} ${entry.status}`);
  }

  it('counts the request once: the run again finds the end written and counts nothing', async () => {
    const lease = await takeLease('gus');
    const first = valueOf(
      await activities.recordStep({
        ...createCommit('gus', FIRST_AT, { etag: lease.etag! }, true),
        end: end('gus'),
      }),
    );
    expect(first.indexed).toBe(true);
    expect(await endsCounted(CONNECTOR)).toBe(1);
    // Durable runs it again (its completion was never saved): the same input, a later time.
    valueOf(
      await activities.recordStep({
        ...createCommit('gus', RERUN_AT, { etag: lease.etag! }, true),
        end: end('gus'),
      }),
    );

    expect(await endsCounted(CONNECTOR)).toBe(1);
    expect(await indexed('gus')).toEqual(['req-gus succeeded']);
    expect(await journalRows('gus')).toHaveLength(1);
  });

  it('indexRequestEnd run again counts the end once too', async () => {
    const connector = 'hr-ends';
    valueOf(await activities.indexRequestEnd(end('hal', connector)));
    valueOf(await activities.indexRequestEnd(end('hal', connector)));

    expect(await endsCounted(connector)).toBe(1);
  });
});

/*
 * Revision 3: a create followed at once by a grant is committed once, the create's entries
 * and record update carried into the grant's commit. Each entry keeps its own step and that
 * step's end; a second run (a re-run episode, at later times) writes nothing twice, whether
 * it meets the first run's commit whole, stopped part way, or grouped otherwise (a re-run
 * that renewed the lease between the steps commits them apart).
 */
describe('recordStep carrying the step before its own, run again at later orchestration times', () => {
  /** The create's end and the grant's in a run; a re-run has both later. */
  const FIRST = { create: FIRST_AT, grant: '2026-03-01T08:00:06.000Z' };
  const RERUN = { create: RERUN_AT, grant: '2026-03-01T08:00:10.000Z' };
  const GROUPS = ['g-1', 'g-2', 'g-3'];

  function createEntries(accountId: string, at: string) {
    return journalEntriesOf(
      { requestId: `req-${accountId}`, connector: CONNECTOR, accountId },
      0,
      [{ change: 'account created' }],
      at,
    );
  }
  function grantEntries(accountId: string, at: string) {
    return journalEntriesOf(
      { requestId: `req-${accountId}`, connector: CONNECTOR, accountId },
      1,
      GROUPS.map((groupId) => ({ change: 'member added' as const, groupId })),
      at,
    );
  }
  /** The grant's commit carrying the create's, as the orchestrator builds it. */
  function carryingCommit(
    accountId: string,
    at: { create: string; grant: string },
    version: { etag?: string },
    release = true,
  ): RecordStepActivityInput {
    return {
      connector: CONNECTOR,
      accountId,
      owner: `req-${accountId}`,
      leaseExpiresAtMs: NOW + TTL,
      ...version,
      stored: null,
      entries: [...createEntries(accountId, at.create), ...grantEntries(accountId, at.grant)],
      earlier: [
        { link: { targetId: `id-${accountId}`, linkedAt: at.create, createdAt: at.create } },
      ],
      earlierSteps: [0],
      update: { granted: GROUPS, groupsAt: at.grant },
      step: 1,
      release,
    };
  }
  /** The account's entries as `step change at`, sorted. */
  async function entriesOf(accountId: string): Promise<string[]> {
    const page = await services.journal.query({ connector: CONNECTOR, accountId, limit: 100 });
    return page.entries.map((entry) => `${entry.step} ${entry.change} ${entry.at}`).sort();
  }
  const firstRun = [
    `0 account created ${FIRST.create}`,
    ...Array(3).fill(`1 member added ${FIRST.grant}`),
  ];

  it('writes each step’s entries once, under its own step’s end, and the record both steps leave', async () => {
    const lease = await takeLease('gus');
    const first = valueOf(
      await activities.recordStep(carryingCommit('gus', FIRST, { etag: lease.etag! })),
    );
    const again = valueOf(
      await activities.recordStep(carryingCommit('gus', RERUN, { etag: lease.etag! })),
    );

    expect(await journalRows('gus')).toHaveLength(4);
    expect(await entriesOf('gus')).toEqual(firstRun);
    const stored = await services.accounts.get(CONNECTOR, 'gus');
    expect(stored).toMatchObject({
      targetId: 'id-gus',
      linkedAt: FIRST.create,
      createdAt: FIRST.create,
      assignedGroups: GROUPS,
    });
    expect(first.record).toEqual(stored);
    expect(again.record).toEqual(stored);
    // Released by the first run: another request takes the lease at once.
    expect(
      await services.accounts.acquire(CONNECTOR, 'gus', 'someone-else', NOW + 5_000, TTL),
    ).toMatchObject({ acquired: true });
  });

  it('after a run killed part way (the create’s marker and one entry written): the re-run finishes it on the same rows', async () => {
    await takeLease('hal');
    const client = tableClient(storage.connection, 'ProvisioningJournal');
    const [createMarker, grantMarker] = stepMarkersOf([
      ...createEntries('hal', FIRST.create),
      ...grantEntries('hal', FIRST.grant),
    ]);
    // The markers are the ones a commit of each step alone has.
    expect(createMarker).toEqual(stepMarkerOf(createEntries('hal', FIRST.create)));
    expect(grantMarker).toEqual(stepMarkerOf(grantEntries('hal', FIRST.grant)));
    expect(await claimStepMarker(client, createMarker!)).toEqual({ done: false, at: FIRST.create });
    await client.upsertEntity(
      journalRowsOf(
        createEntries('hal', FIRST.create),
        (_connector: string, accountId: string) => accountId,
      )[0]!,
      'Replace',
    );

    valueOf(await activities.recordStep(carryingCommit('hal', RERUN, {})));

    // The create's entry stays under the first run's time; the grant's, never written, under the re-run's.
    expect(await entriesOf('hal')).toEqual([
      `0 account created ${FIRST.create}`,
      ...Array(3).fill(`1 member added ${RERUN.grant}`),
    ]);
    expect(await services.accounts.get(CONNECTOR, 'hal')).toMatchObject({
      targetId: 'id-hal',
      assignedGroups: GROUPS,
    });
    expect(await claimStepMarker(client, createMarker!)).toEqual({ done: true });
    expect(await claimStepMarker(client, grantMarker!)).toEqual({ done: true });
  });

  it('after a first run that committed the steps apart (it renewed the lease between them): nothing doubles', async () => {
    const lease = await takeLease('ida');
    const alone = valueOf(
      await activities.recordStep({
        connector: CONNECTOR,
        accountId: 'ida',
        owner: 'req-ida',
        leaseExpiresAtMs: NOW + TTL,
        etag: lease.etag!,
        stored: null,
        entries: createEntries('ida', FIRST.create),
        update: { link: { targetId: 'id-ida', linkedAt: FIRST.create, createdAt: FIRST.create } },
        release: false,
      }),
    );
    valueOf(
      await activities.recordStep({
        connector: CONNECTOR,
        accountId: 'ida',
        owner: 'req-ida',
        leaseExpiresAtMs: NOW + TTL,
        etag: alone.etag!,
        stored: alone.record,
        entries: grantEntries('ida', FIRST.grant),
        update: { granted: GROUPS, groupsAt: FIRST.grant },
        release: true,
      }),
    );
    // The re-run episode did not renew: it carries the create into the grant's commit.
    valueOf(await activities.recordStep(carryingCommit('ida', RERUN, { etag: lease.etag! })));

    expect(await entriesOf('ida')).toEqual(firstRun);
    expect(await services.accounts.get(CONNECTOR, 'ida')).toMatchObject({
      linkedAt: FIRST.create,
      assignedGroups: GROUPS,
    });
  });

  it('after a first run that committed the create alone and stopped: the re-run, in parts, keeps the create’s record as written', async () => {
    const lease = await takeLease('kit');
    valueOf(
      await activities.recordStep({
        connector: CONNECTOR,
        accountId: 'kit',
        owner: 'req-kit',
        leaseExpiresAtMs: NOW + TTL,
        etag: lease.etag!,
        stored: null,
        entries: createEntries('kit', FIRST.create),
        update: { link: { targetId: 'id-kit', linkedAt: FIRST.create, createdAt: FIRST.create } },
        step: 0,
        release: false,
      }),
    );
    // The re-run episode carries the create into the grant's commit, at the lease's first
    // version (refused as a whole: the row changed since), so it is written in parts.
    valueOf(await activities.recordStep(carryingCommit('kit', RERUN, { etag: lease.etag! })));

    expect(await entriesOf('kit')).toEqual([
      `0 account created ${FIRST.create}`,
      ...Array(3).fill(`1 member added ${RERUN.grant}`),
    ]);
    expect(await services.accounts.get(CONNECTOR, 'kit')).toMatchObject({
      targetId: 'id-kit',
      linkedAt: FIRST.create,
      createdAt: FIRST.create,
      assignedGroups: GROUPS,
    });
  });

  it('a step held and run again, committing the same change in parts: its new state is kept, its entry once', async () => {
    const lease = await takeLease('liv');
    const commitOf = (at: string, enabled: boolean, etag: string) => ({
      connector: CONNECTOR,
      accountId: 'liv',
      owner: 'req-liv',
      leaseExpiresAtMs: NOW + TTL,
      etag,
      stored: null,
      entries: createEntries('liv', FIRST.create),
      update: {
        link: { targetId: 'id-liv', linkedAt: at, createdAt: at },
        enabled: { value: enabled, at },
      },
      step: 0,
      release: false,
    });
    valueOf(await activities.recordStep(commitOf(FIRST.create, true, lease.etag!)));
    // The step runs again after a hold and finds the account locked meanwhile: the same
    // change, its entry's key the same, and a record that says more than new times.
    valueOf(await activities.recordStep(commitOf(RERUN.create, false, lease.etag!)));

    expect(await entriesOf('liv')).toEqual([`0 account created ${FIRST.create}`]);
    expect(await services.accounts.get(CONNECTOR, 'liv')).toMatchObject({
      targetId: 'id-liv',
      enabled: false,
    });
  });

  it('after a first run that carried the create, when the re-run commits it alone first: nothing doubles', async () => {
    const lease = await takeLease('jo');
    valueOf(await activities.recordStep(carryingCommit('jo', FIRST, { etag: lease.etag! })));
    valueOf(
      await activities.recordStep({
        connector: CONNECTOR,
        accountId: 'jo',
        owner: 'req-jo',
        leaseExpiresAtMs: NOW + TTL,
        etag: lease.etag!,
        stored: null,
        entries: createEntries('jo', RERUN.create),
        update: { link: { targetId: 'id-jo', linkedAt: RERUN.create, createdAt: RERUN.create } },
        release: false,
      }),
    );

    expect(await entriesOf('jo')).toEqual(firstRun);
    expect((await services.accounts.get(CONNECTOR, 'jo'))?.assignedGroups).toEqual(GROUPS);
  });
});

describe('a carried commit whose steps with entries were all written by a commit whose answer was lost', () => {
  const CREATED = '2026-03-01T08:00:05.000Z';
  const GRANTED = '2026-03-01T08:00:06.000Z';
  const LOCKED = '2026-03-01T08:00:07.000Z';

  function createEntries(accountId: string) {
    return journalEntriesOf(
      { requestId: `req-${accountId}`, connector: CONNECTOR, accountId },
      0,
      [{ change: 'account created' }],
      CREATED,
    );
  }
  const createUpdate = (accountId: string) => ({
    link: { targetId: `id-${accountId}`, linkedAt: CREATED, createdAt: CREATED },
    enabled: { value: true, at: CREATED },
  });
  /** The create written alone before a renewal of the lease: it wrote, its answer was lost. */
  async function createWrittenAlone(accountId: string): Promise<void> {
    const lease = await takeLease(accountId);
    valueOf(
      await activities.recordStep({
        connector: CONNECTOR,
        accountId,
        owner: `req-${accountId}`,
        leaseExpiresAtMs: NOW + TTL,
        etag: lease.etag!,
        stored: null,
        entries: createEntries(accountId),
        update: createUpdate(accountId),
        release: false,
      }),
    );
  }
  /**
   * The last step's commit, still carrying the create (the orchestrator kept it), and the
   * record updates of a grant and a lock whose answers were lost and that no read settled:
   * neither journals anything, so neither has a marker.
   */
  function lastCommit(accountId: string): RecordStepActivityInput {
    return {
      connector: CONNECTOR,
      accountId,
      owner: `req-${accountId}`,
      leaseExpiresAtMs: NOW + TTL,
      // A failed commit leaves the version of the row unknown.
      stored: null,
      entries: createEntries(accountId),
      earlier: [createUpdate(accountId), { unconfirmedGroups: ['g-1'], groupsAt: GRANTED }],
      update: { enabledUnconfirmed: { value: false, at: LOCKED } },
      release: true,
    };
  }

  it('applies the later steps’ record updates, journals nothing twice, and releases the lease', async () => {
    await createWrittenAlone('kim');
    const committed = valueOf(await activities.recordStep(lastCommit('kim')));

    expect(await journalRows('kim')).toHaveLength(1);
    const stored = await services.accounts.get(CONNECTOR, 'kim');
    // The lock's state is not known (its answer was lost): a later unlock must not say "already".
    expect(stored).toMatchObject({
      targetId: 'id-kim',
      linkedAt: CREATED,
      enabledUnconfirmed: false,
      unconfirmedGroups: ['g-1'],
    });
    expect(stored?.enabled).toBeUndefined();
    expect(committed.record).toEqual(stored);
    expect(
      await services.accounts.acquire(CONNECTOR, 'kim', 'someone-else', NOW + 5_000, TTL),
    ).toMatchObject({ acquired: true });
  });

  it('run again (its own answer lost too): the record and journal stay as the first run left them', async () => {
    await createWrittenAlone('lou');
    const lease = await takeLease('lou');
    valueOf(await activities.recordStep({ ...lastCommit('lou'), etag: lease.etag! }));
    const first = await services.accounts.get(CONNECTOR, 'lou');
    // The release ran: the re-run finds the lease free, another request may hold it since.
    await services.accounts.acquire(CONNECTOR, 'lou', 'someone-else', NOW + 5_000, TTL);
    valueOf(await activities.recordStep(lastCommit('lou')));

    expect(await journalRows('lou')).toHaveLength(1);
    expect(await services.accounts.get(CONNECTOR, 'lou')).toEqual(first);
    expect(first).toMatchObject({ enabledUnconfirmed: false, unconfirmedGroups: ['g-1'] });
  });
});
