import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JournalEntry } from '../../../src/domain/journal-entry';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import type { RecordStepActivityInput } from '../../../src/workflows/activities/activity-inputs';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import { journalChanges, truthChanges, truthMark } from '../../support/journal-truth';
import { until } from '../../support/poll-until';
import { untilHeld } from '../../support/quarantine-watch';
import {
  GRAPH,
  SCIM,
  activityCalls,
  importCatalogue,
  requestActivityCalls,
  useServiceBench,
} from '../../support/service-bench';

/*
 * Issue 15, revision 3: a step that succeeded with another step right after it is not
 * committed on its own (an activity and a transaction); its journal entries and record
 * update go with the next commit. Nothing is lost or delayed past anything that can last:
 * a hold after the first step finds it journaled. Judged by the sandboxes' truth logs, the
 * stored journal and record, and the activities each request scheduled.
 */
const bench = useServiceBench({
  clock: 100,
  connectorSettings: (settings) => ({
    ...settings,
    maxThrottleWaitSeconds: 30,
    maxThrottleHoldMinutes: 10,
  }),
});
beforeAll(async () => {
  await importCatalogue(bench, SCIM);
  await importCatalogue(bench, GRAPH);
});
/** The SCIM sandbox's quirks on the bench. */
const SCIM_QUIRKS = { lastLogonAttribute: 'lastLogin' };

afterEach(() => {
  bench.sandboxes.scim.clearInjected();
  bench.sandboxes.scim.setQuirks(SCIM_QUIRKS);
  vi.restoreAllMocks();
});

const GROUPS = ['Engineering', 'Sales', 'Finance'];

function truthLogOf(connector: string) {
  return connector === SCIM ? bench.sandboxes.scim.truthLog() : bench.sandboxes.graph.truthLog();
}

async function entriesOf(
  connector: string,
  accountId: string,
  requestId: string,
): Promise<JournalEntry[]> {
  return (await bench.journal(connector, accountId)).filter(
    (entry) => entry.requestId === requestId,
  );
}

/** Starts the next requests with their input as revision 2 accepted them. */
function acceptedByRevision(revision: number): void {
  const { driver } = bench.runtime;
  const startNew = driver.startNew.bind(driver);
  vi.spyOn(driver, 'startNew').mockImplementation((name, instanceId, input) =>
    startNew(name, instanceId, { ...(input as Record<string, unknown>), revision }),
  );
}

/** Runs a create + grant of three groups; its report, truth and journal. */
async function createAndGrant(connector: string, name: string) {
  const accountId = connector === GRAPH ? `${name}@contoso.example` : name;
  const since = truthMark(truthLogOf(connector));
  const requestId = `carried-${connector}-${name}`;
  const report = await bench.run({
    requestId,
    connector,
    account: { accountId, displayName: name },
    actions: [
      { type: 'create' },
      { type: 'grant', groups: GROUPS.map((group) => ({ name: group })) },
    ],
  });
  return {
    accountId,
    requestId,
    report,
    truth: truthChanges(truthLogOf(connector), since),
    entries: await entriesOf(connector, accountId, requestId),
    commits: requestActivityCalls(bench, requestId, ACTIVITIES.recordStep),
  };
}

describe('a create + grant accepted now', () => {
  it.each([SCIM, GRAPH])(
    'on %s journals both steps’ changes once, in one commit, each at its own step’s end',
    async (connector) => {
      const run = await createAndGrant(connector, `carried.${connector === SCIM ? 's' : 'g'}`);
      expect(run.report.status, JSON.stringify(run.report.steps)).toBe('succeeded');
      expect(run.truth).toHaveLength(4);
      expect(journalChanges(run.entries)).toEqual(run.truth);
      // One commit: the grant's, carrying the create's entries and record update.
      expect(run.commits).toHaveLength(1);
      const commit = run.commits[0]!.input as RecordStepActivityInput;
      expect(commit.entries.map((entry) => entry.step)).toEqual([0, 1, 1, 1]);
      expect(commit.earlier).toHaveLength(1);
      expect(commit.release).toBe(true);
      // Each entry keeps its step's end, which the report shows; the create ended first.
      for (const entry of run.entries) {
        expect(entry.at).toBe(run.report.steps[entry.step]!.finishedAt);
      }
      expect(Date.parse(run.report.steps[0]!.finishedAt!)).toBeLessThan(
        Date.parse(run.report.steps[1]!.finishedAt!),
      );
      // The record both steps leave, and the lease released with the commit.
      const record = await bench.runtime.services.accounts.get(connector, run.accountId);
      const groupIds = run.entries.flatMap((entry) =>
        entry.groupId === undefined ? [] : [entry.groupId],
      );
      expect(record?.targetId).not.toBe('');
      expect(record?.assignedGroups).toEqual(groupIds.sort());
      expect(
        await bench.runtime.services.accounts.acquire(
          connector,
          run.accountId,
          'another-request',
          bench.clock.now(),
          60_000,
        ),
      ).toMatchObject({ acquired: true });
    },
    60_000,
  );

  it('accepted by revision 2 still commits each step on its own, and journals the same', async () => {
    acceptedByRevision(2);
    const run = await createAndGrant(SCIM, 'revision2.commits');
    expect(run.report.status).toBe('succeeded');
    expect(journalChanges(run.entries)).toEqual(run.truth);
    expect(
      run.commits.map((call) => (call.input as RecordStepActivityInput).entries.map((e) => e.step)),
    ).toEqual([[0], [1, 1, 1]]);
  }, 60_000);
});

describe('a grant throttled past its in-place wait, after the create', () => {
  it('journals the create before the hold begins, and each change once in the end', async () => {
    const { scim } = bench.sandboxes;
    const accountId = 'carried.held';
    const since = truthMark(scim.truthLog());
    // The create passes; the grant's write answers 429 "wait 5 min": past the 30 s a call
    // waits in place, so the request is held (3 s on this clock) and runs the grant again.
    scim.injectThrottle(1, '300', { writesOnly: true, afterWrites: 1 });
    const requestId = await bench.submit({
      requestId: 'carried-held',
      connector: SCIM,
      account: { accountId, displayName: 'Carried Held' },
      actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }] }],
    });
    const hold = await untilHeld(bench, requestId);
    expect(hold).toMatchObject({ cause: 'throttling' });
    // While it is held: the create is in the journal and the record, the grant not yet.
    const duringHold = await entriesOf(SCIM, accountId, requestId);
    expect(duringHold.map((entry) => `${entry.step} ${entry.change}`)).toEqual([
      '0 account created',
    ]);
    const record = await bench.runtime.services.accounts.get(SCIM, accountId);
    expect(record?.targetId).toBe(scim.getUser(accountId)?.id);

    const report = await bench.finish(requestId, 60_000);
    expect(report.status).toBe('succeeded');
    const truth = truthChanges(scim.truthLog(), since);
    expect(truth).toHaveLength(2);
    expect(journalChanges(await entriesOf(SCIM, accountId, requestId))).toEqual(truth);
    // In the history: the create's commit (with the grant's failure, which changed nothing)
    // is scheduled before the hold's timer.
    const history = bench.runtime.driver.history(requestInstanceId(requestId));
    const firstCommit = history.findIndex(
      (event) =>
        event.EventType === HISTORY_EVENT.TaskScheduled && event.Name === ACTIVITIES.recordStep,
    );
    const firstTimer = history.findIndex((event) => event.EventType === HISTORY_EVENT.TimerCreated);
    expect(firstCommit).toBeGreaterThan(-1);
    expect(firstTimer).toBeGreaterThan(firstCommit);
  }, 90_000);
});

describe('a create that ends more than half a lease after the lease was taken', () => {
  it('writes the create’s commit before the next step renews the lease (revision 4: the create in an activity of its own)', async () => {
    acceptedByRevision(4);
    const { scim } = bench.sandboxes;
    const accountId = 'carried.renewed';
    const since = truthMark(scim.truthLog());
    // Every SCIM answer takes 3 minutes on this clock (1.8 s): the create ends past half of
    // the lease, so the grant's start renews it.
    scim.setQuirks({ ...SCIM_QUIRKS, latencyMs: 1_800 });
    const requestId = await bench.submit({
      requestId: 'carried-renewed',
      connector: SCIM,
      account: { accountId, displayName: 'Carried Renewed' },
      actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }] }],
    });
    await until('the create', async () => scim.getUser(accountId), { timeoutMs: 60_000 });
    scim.setQuirks(SCIM_QUIRKS);
    const report = await bench.finish(requestId, 60_000);
    expect(report.status).toBe('succeeded');
    expect(journalChanges(await entriesOf(SCIM, accountId, requestId))).toEqual(
      truthChanges(scim.truthLog(), since),
    );
    // The create's commit was written on its own before the renewal; the grant's after it.
    const scheduled = bench.runtime.driver
      .history(requestInstanceId(requestId))
      .filter((event) => event.EventType === HISTORY_EVENT.TaskScheduled)
      .map((event) => event.Name);
    const created = scheduled.indexOf(ACTIVITIES.createAccount);
    expect(scheduled.slice(created + 1, created + 3)).toEqual([
      ACTIVITIES.recordStep,
      ACTIVITIES.acquireAccountLease,
    ]);
    const commits = requestActivityCalls(bench, requestId, ACTIVITIES.recordStep);
    expect(
      commits.map((call) => (call.input as RecordStepActivityInput).entries.map((e) => e.step)),
    ).toEqual([[0], [1]]);
  }, 90_000);
});

describe('a create sent with the first look that ends more than half a lease after that look took the lease', () => {
  it('renews the lease before the create’s step goes on, and journals each change once', async () => {
    const { scim } = bench.sandboxes;
    const accountId = 'carried.renewed-first-look';
    const since = truthMark(scim.truthLog());
    // Every SCIM answer takes 3 minutes on this clock (1.8 s): the create, sent by the first
    // look (revision 5), ends past half of the lease that look took.
    scim.setQuirks({ ...SCIM_QUIRKS, latencyMs: 1_800 });
    const requestId = await bench.submit({
      requestId: 'carried-renewed-first-look',
      connector: SCIM,
      account: { accountId, displayName: 'Carried Renewed' },
      actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }] }],
    });
    await until('the create', async () => scim.getUser(accountId), { timeoutMs: 60_000 });
    scim.setQuirks(SCIM_QUIRKS);
    const report = await bench.finish(requestId, 60_000);
    expect(report.status).toBe('succeeded');
    expect(journalChanges(await entriesOf(SCIM, accountId, requestId))).toEqual(
      truthChanges(scim.truthLog(), since),
    );
    // The lease counts from the first look, not from its answer: renewed at once.
    const calls = activityCalls(bench, requestInstanceId(requestId));
    expect(calls.slice(0, 2).map((call) => call.name)).toEqual([
      ACTIVITIES.connectorGate,
      ACTIVITIES.acquireAccountLease,
    ]);
    expect(calls[1]!.scheduledAt - calls[0]!.scheduledAt).toBeGreaterThan(150_000);
    expect(calls.map((call) => call.name)).not.toContain(ACTIVITIES.createAccount);
  }, 90_000);
});
