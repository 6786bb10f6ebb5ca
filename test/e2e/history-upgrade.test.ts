import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvocationContext } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  journalChanges,
  journalOfRequests,
  truthChanges,
  truthMark,
} from '../support/journal-truth';
import { metricSamples, sumOf } from '../support/metric-samples';
import type { RequestReport } from '../../src/domain/request-report';
import type { RecordedAction } from '../../src/runtime/local-host/driver-instance';
import { HISTORY_EVENT, type HistoryEvent } from '../../src/runtime/local-host/history-events';
import type { HistoryStore, SavedInstance } from '../../src/runtime/local-host/history-store';
import { OrchestrationDriver } from '../../src/runtime/local-host/orchestration-driver';
import { createReplayer } from '../../src/runtime/local-host/orchestrator-replay';
import { actionDifference } from '../../src/runtime/local-host/replayed-action';
import { toRetryPolicy } from '../../src/runtime/local-host/retry-policy';
import { VirtualClock } from '../../src/runtime/local-host/virtual-clock';
import { createActivityHandlers } from '../../src/workflows/activities';
import { ORCHESTRATORS } from '../../src/workflows/orchestrators';
import { ACTIVITY_RETRY } from '../../src/workflows/orchestrators/activity-calls';
import { ACTIVITIES, ORCHESTRATIONS, requestInstanceId } from '../../src/workflows/names';
import type { OrchestrationClient } from '../../src/workflows/orchestration-client';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * Issue 15: requests that were running when the service was upgraded end as they began.
 * The histories were recorded by the service before the change (a create + grant of
 * Engineering, Sales and Finance on each sandbox): their gate answers hold no roles, so the
 * grant step looks its roles up itself, and their last commit did not index the request's
 * end, so indexRequestEnd does.
 */

interface RecordedHistory {
  instanceId: string;
  input: unknown;
  history: HistoryEvent[];
  output: RequestReport;
}

function recorded(connector: string, revision = ''): RecordedHistory {
  const path = join(__dirname, '../support/histories', `${connector}-create-grant${revision}.json`);
  return JSON.parse(readFileSync(path, 'utf8')) as RecordedHistory;
}

const scheduled = (history: readonly HistoryEvent[]) =>
  history.filter((event) => event.EventType === HISTORY_EVENT.TaskScheduled);

/** Where each episode of a history starts. */
const episodeStarts = (history: readonly HistoryEvent[]) =>
  history.flatMap((event, index) =>
    event.EventType === HISTORY_EVENT.OrchestratorStarted ? [index] : [],
  );

/** The actions the recorded service took, as the driver keeps them. */
function actionsOf(history: readonly HistoryEvent[]): RecordedAction[] {
  const starts = episodeStarts(history);
  return history.flatMap((event, index): RecordedAction[] =>
    event.EventType === HISTORY_EVENT.TaskScheduled
      ? [
          {
            action: {
              kind: 'activityWithRetry',
              name: event.Name,
              input: event.Input,
              retry: toRetryPolicy(ACTIVITY_RETRY),
            },
            episode: starts.filter((start) => start < index).length - 1,
            eventId: event.EventId,
          },
        ]
      : [],
  );
}

/**
 * The request as the process that recorded it left it when it stopped: its history up to
 * the episode that would have handed it `activity`'s answer (the activity was scheduled,
 * its answer lost with the process).
 */
function stoppedAwaiting(history: RecordedHistory, activity: string): SavedInstance {
  const scheduledAt = history.history.findIndex(
    (event) => event.EventType === HISTORY_EVENT.TaskScheduled && event.Name === activity,
  );
  const cut = episodeStarts(history.history).find((start) => start > scheduledAt)!;
  const events = history.history.slice(0, cut);
  const starts = episodeStarts(events);
  const pending = scheduled(events).at(-1)!;
  expect(pending.Name).toBe(activity);
  const policy = toRetryPolicy(ACTIVITY_RETRY);
  const lastEpisodeAt = Date.parse(events[starts.at(-1)!]!.Timestamp);
  return {
    instanceId: history.instanceId,
    name: ORCHESTRATIONS.provisioningRequest,
    inputJson: JSON.stringify(history.input),
    createdAt: Date.parse(events[0]!.Timestamp),
    state: {
      runtimeStatus: 'Running',
      customStatus: null,
      output: null,
      updatedAt: lastEpisodeAt,
      retries: [
        [
          pending.EventId,
          { name: activity, input: pending.Input, policy, failedAttempts: 0, phase: 'attempt' },
        ],
      ],
      nextEventId: pending.EventId + 1,
      episodes: starts.length,
      lastEpisodeAt,
    },
    history: events,
    actions: actionsOf(events),
    canceledTimers: [],
    saves: 1,
  };
}

let t: TestHost;

beforeAll(async () => {
  // On the recorded run's clock: its leases and step times are what the upgraded service sees.
  t = await startTestHost({}, { clock: new VirtualClock(Date.parse('2026-11-23T08:00:00Z')) });
  expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
}, 60_000);

afterAll(() => t.close());

/** Runs `saved` on the upgraded service as a restarted local host resumes it. */
async function resume(saved: SavedInstance): Promise<{ output: RequestReport; names: string[] }> {
  const store: HistoryStore = {
    load: async () => [saved],
    save: async () => undefined,
    durable: async () => undefined,
  };
  const services = t.host.services;
  const driver: OrchestrationDriver = new OrchestrationDriver({
    orchestrators: ORCHESTRATORS,
    activities: createActivityHandlers(
      async () => services,
      (): OrchestrationClient => driver,
    ) as unknown as Record<string, (input: unknown) => Promise<unknown>>,
    clock: t.clock,
    history: store,
  });
  try {
    expect(await driver.restore()).toEqual({ instances: 1, resumed: 1 });
    const state = await driver.waitFor(saved.instanceId, 20_000);
    expect(state.runtimeStatus, JSON.stringify(state.output)).toBe('Completed');
    const names = scheduled(driver.history(saved.instanceId)).map((event) => event.Name);
    return { output: state.output as RequestReport, names };
  } finally {
    await driver.close();
  }
}

async function requestsCounted(connector: string): Promise<number> {
  return sumOf(await metricSamples(t), 'provisioning_requests_total', {
    provisioning_connector: connector,
    provisioning_outcome: 'succeeded',
  });
}

/**
 * Replays `history` on every prefix (cut at each episode's start) as the task hub would on
 * the upgraded service: each episode must take the recorded actions, and the last end with
 * the recorded report. The first episode where it does not, else undefined.
 */
async function replayDifference(history: RecordedHistory): Promise<string | undefined> {
  const replay = createReplayer(ORCHESTRATORS[ORCHESTRATIONS.provisioningRequest]!);
  const actions = actionsOf(history.history);
  const starts = episodeStarts(history.history);
  for (const [episode, start] of starts.entries()) {
    const end = starts[episode + 1] ?? history.history.length;
    const outcome = await replay({
      instanceId: history.instanceId,
      history: history.history.slice(0, end),
      input: history.input,
      context: new InvocationContext(),
    });
    const at = `episode ${episode} from event ${start}`;
    if (outcome.status === 'failed') return `${at}: failed`;
    const expected = actions.filter((action) => action.episode <= episode);
    if (outcome.actions.length !== expected.length) {
      return `${at}: ${outcome.actions.length} actions, recorded ${expected.length}`;
    }
    for (const [index, action] of expected.entries()) {
      // As the task hub judges a replay: the kind and name of each action.
      const difference = actionDifference(action.action, outcome.actions[index]!, false);
      if (difference !== undefined) return `${at}: ${difference}`;
    }
    if (episode === starts.length - 1) {
      expect(outcome.status).toBe('completed');
      expect(outcome.output).toEqual(history.output);
    }
  }
  return undefined;
}

describe('a history recorded by revision 2, each step committed on its own', () => {
  it.each(['scim-sandbox', 'graph-sandbox'])(
    'of %s replays on every prefix as it ran, its create committed before the grant began',
    async (connector) => {
      const history = recorded(connector, '-revision-2');
      expect((history.input as { revision?: number }).revision).toBe(2);
      const names = scheduled(history.history).map((event) => event.Name);
      expect(names.filter((name) => name === ACTIVITIES.recordStep)).toHaveLength(2);
      expect(names[names.indexOf(ACTIVITIES.createAccount) + 1]).toBe(ACTIVITIES.recordStep);
      expect(await replayDifference(history)).toBeUndefined();
    },
  );

  it('would not replay as revision 3, which carries the create into the grant’s commit', async () => {
    const history = recorded('scim-sandbox', '-revision-2');
    const asRevision3 = { ...history, input: { ...(history.input as object), revision: 3 } };
    expect(await replayDifference(asRevision3)).toMatch(/recordStep/);
  });
});

describe('a history recorded before the roles were looked up with the lease and the end indexed with the last commit', () => {
  it.each(['scim-sandbox', 'graph-sandbox'])(
    'of %s replays on every prefix as it ran: each episode takes the recorded actions, and it ends with the recorded report',
    async (connector) => {
      const history = recorded(connector);
      const names = scheduled(history.history).map((event) => event.Name);
      expect(names).toContain(ACTIVITIES.lookUpRoles);
      expect(names.at(-1)).toBe(ACTIVITIES.indexRequestEnd);
      expect(await replayDifference(history)).toBeUndefined();
    },
  );

  it('ends a request stopped while indexRequestEnd ran: indexed with its reported end, counted once', async () => {
    const history = recorded('scim-sandbox');
    const before = await requestsCounted('scim-sandbox');
    const { output, names } = await resume(stoppedAwaiting(history, ACTIVITIES.indexRequestEnd));
    expect(output).toEqual(history.output);
    expect(names).toEqual(scheduled(history.history).map((event) => event.Name));
    const page = await t.host.services.requests.query({ accountId: 'upgrade.scim' });
    const entry = page.entries.find((e) => e.requestId === history.output.requestId);
    expect(entry?.status).toBe('succeeded');
    expect(entry?.finishedAt).toBe(output.finishedAt);
    expect((await requestsCounted('scim-sandbox')) - before).toBe(1);
  });

  it('ends a request stopped while its grant step looked up its roles: the groups granted on the target, indexed and counted once', async () => {
    const history = recorded('scim-sandbox');
    const accountId = 'upgrade.scim-roles';
    const { scim } = t.host.sandboxes!;
    // The account the recorded run created, on this target: its id stands for the recorded one.
    const create = scheduled(history.history).find(
      (event) => event.Name === ACTIVITIES.createAccount,
    )!;
    let recordedId = '';
    for (const event of history.history) {
      if (
        event.EventType === HISTORY_EVENT.TaskCompleted &&
        event.TaskScheduledId === create.EventId
      ) {
        recordedId = (JSON.parse(event.Result) as { value: { account: { id: string } } }).value
          .account.id;
      }
    }
    expect(recordedId).not.toBe('');
    const [user] = scim.seedUsers([{ userName: accountId, displayName: 'Upgrade Test' }]);
    const moved = JSON.parse(
      JSON.stringify(history)
        .replaceAll(recordedId, user!.id)
        .replaceAll('upgrade.scim', accountId)
        .replaceAll('upgrade-scim-sandbox', 'upgrade-scim-roles'),
    ) as RecordedHistory;
    const saved = stoppedAwaiting(moved, ACTIVITIES.lookUpRoles);
    // The lease its gate took, as the recorded service's storage held it.
    const lease = await t.host.services.accounts.acquire(
      'scim-sandbox',
      accountId,
      moved.instanceId,
      t.clock.now(),
      300_000,
    );
    expect(lease.acquired).toBe(true);
    const before = await requestsCounted('scim-sandbox');

    const { output, names } = await resume(saved);
    expect(output.status).toBe('succeeded');
    expect(output.steps.map((step) => step.state)).toEqual(['succeeded', 'succeeded']);
    expect(output.steps[1]!.changes.map((change) => change.groupName).sort()).toEqual([
      'Engineering',
      'Finance',
      'Sales',
    ]);
    const members = (name: string) =>
      ((scim.getGroup(name)?.members ?? []) as { value: string }[]).map((m) => m.value);
    for (const name of ['Engineering', 'Sales', 'Finance']) {
      expect(members(name).filter((value) => [user!.id, accountId].includes(value))).toHaveLength(
        1,
      );
    }
    // Recorded up to the lookup; from there the upgraded service, whose last commit indexes the end.
    expect(names).toEqual([
      ACTIVITIES.connectorGate,
      ACTIVITIES.createAccount,
      ACTIVITIES.recordStep,
      ACTIVITIES.lookUpRoles,
      ACTIVITIES.readMemberships,
      ACTIVITIES.writeMemberships,
      ACTIVITIES.readMemberships,
      ACTIVITIES.recordStep,
    ]);
    const page = await t.host.services.requests.query({ accountId });
    const entry = page.entries.find((e) => e.requestId === output.requestId);
    expect(entry?.status).toBe('succeeded');
    expect(entry?.finishedAt).toBe(output.finishedAt);
    expect((await requestsCounted('scim-sandbox')) - before).toBe(1);
  });
});

describe('a history recorded by revision 3: an update confirmed although no read showed one of its values', () => {
  const history = (): RecordedHistory =>
    JSON.parse(
      readFileSync(
        join(__dirname, '../support/histories/graph-sandbox-update-unseen-revision-3.json'),
        'utf8',
      ),
    ) as RecordedHistory;

  it('replays on every prefix as it ran, ending with the recorded report', async () => {
    const recordedRun = history();
    expect((recordedRun.input as { revision?: number }).revision).toBe(3);
    expect(recordedRun.output.steps[0]?.notices.join(' ')).toContain(
      'not readable back from the target, so not verified: attributes.department',
    );
    expect(await replayDifference(recordedRun)).toBeUndefined();
  });

  it('would not replay as revision 4, which reads again for the value no read showed', async () => {
    const recordedRun = history();
    const asRevision4 = {
      ...recordedRun,
      input: { ...(recordedRun.input as object), revision: 4 },
    };
    expect(await replayDifference(asRevision4)).toBeDefined();
  });
});

describe('a history recorded by revision 4: a delete of an unlinked account concluded absent after one lookup', () => {
  const history = (): RecordedHistory =>
    JSON.parse(
      readFileSync(
        join(__dirname, '../support/histories/graph-sandbox-delete-unlinked-revision-4.json'),
        'utf8',
      ),
    ) as RecordedHistory;

  it('replays on every prefix as it ran, ending with the recorded report', async () => {
    const recordedRun = history();
    expect((recordedRun.input as { revision?: number }).revision).toBe(4);
    expect(recordedRun.output.steps[0]?.notices.join(' ')).toContain(
      'is absent: nothing to delete',
    );
    expect(await replayDifference(recordedRun)).toBeUndefined();
  });

  it('would not end as recorded under revision 5, which wants evidence the lookup does not hold', async () => {
    const recordedRun = history();
    const outcome = await createReplayer(ORCHESTRATORS[ORCHESTRATIONS.provisioningRequest]!)({
      instanceId: recordedRun.instanceId,
      history: recordedRun.history,
      input: { ...(recordedRun.input as object), revision: 5 },
      context: new InvocationContext(),
    });
    expect(outcome.status).toBe('completed');
    const report = outcome.output as RequestReport;
    expect(report.steps[0]?.state).toBe('failed');
    expect(report.steps[0]?.error?.message).toContain('could not tell');
  });
});

describe('a history recorded by revision 4: the create sent by an activity of its own, after the first look', () => {
  it.each(['scim-sandbox', 'graph-sandbox'])(
    'of %s replays on every prefix as it ran, ending with the recorded report',
    async (connector) => {
      const history = recorded(connector, '-revision-4');
      expect((history.input as { revision?: number }).revision).toBe(4);
      const names = scheduled(history.history).map((event) => event.Name);
      expect(names.slice(0, 2)).toEqual([ACTIVITIES.connectorGate, ACTIVITIES.createAccount]);
      expect(await replayDifference(history)).toBeUndefined();
    },
  );

  it('replays as revision 5 too: a first look that answered no create leaves the step to send it', async () => {
    for (const connector of ['scim-sandbox', 'graph-sandbox']) {
      const history = recorded(connector, '-revision-4');
      const asRevision5 = { ...history, input: { ...(history.input as object), revision: 5 } };
      expect(await replayDifference(asRevision5)).toBeUndefined();
    }
  });

  it('ends a request stopped while its create ran: the account created once, journaled once as the request’s own', async () => {
    const history = recorded('scim-sandbox', '-revision-4');
    const accountId = 'upgrade.scim-create';
    const { scim } = t.host.sandboxes!;
    // The groups its first look found, as this target has them.
    const gate = scheduled(history.history).find(
      (event) => event.Name === ACTIVITIES.connectorGate,
    )!;
    let result = '';
    for (const event of history.history) {
      if (
        event.EventType === HISTORY_EVENT.TaskCompleted &&
        event.TaskScheduledId === gate.EventId
      ) {
        result = event.Result;
      }
    }
    const { roles } = (
      JSON.parse(result) as {
        value: { roles: { found: { value: { id: string; displayName: string }[] } }[] };
      }
    ).value;
    let text = JSON.stringify(history)
      .replaceAll('revision4.scim', accountId)
      .replaceAll('revision4-scim-sandbox', 'upgrade-scim-create');
    for (const group of roles[0]!.found.value) {
      text = text.replaceAll(group.id, String(scim.getGroup(group.displayName)?.id));
    }
    const moved = JSON.parse(text) as RecordedHistory;
    const saved = stoppedAwaiting(moved, ACTIVITIES.createAccount);
    // The lease its first look took, as the recorded service's storage held it.
    const lease = await t.host.services.accounts.acquire(
      'scim-sandbox',
      accountId,
      moved.instanceId,
      t.clock.now(),
      300_000,
    );
    expect(lease.acquired).toBe(true);
    const since = truthMark(scim.truthLog());

    const { output, names } = await resume(saved);
    expect(output.status, JSON.stringify(output.steps)).toBe('succeeded');
    expect(output.steps[0]!.changes.map((change) => change.change)).toEqual(['account created']);
    // Recorded up to the create; revision 4's activities from there on.
    expect(names).toEqual([
      ACTIVITIES.connectorGate,
      ACTIVITIES.createAccount,
      ACTIVITIES.readMemberships,
      ACTIVITIES.writeMemberships,
      ACTIVITIES.recordStep,
    ]);
    // The target's truth: the account and its three memberships, each once; the journal, the same.
    const committed = truthChanges(scim.truthLog(), since);
    expect(committed.filter((change) => change.endsWith('account created'))).toEqual([
      `${accountId} account created`,
    ]);
    expect(committed).toHaveLength(4);
    expect(journalChanges(await journalOfRequests(t, [output.requestId]))).toEqual(committed);
  });
});

describe('a revision-5 request whose first look, which sends its create, runs again', () => {
  it('after the create was sent: the account created once, and journaled as the request’s own', async () => {
    const { scim } = t.host.sandboxes!;
    // A request as this service runs it now, to its end: its history up to the first look.
    const source = 'rerun-source';
    const answer = await t.api('POST', '/api/requests', {
      requestId: source,
      connector: 'scim-sandbox',
      account: { accountId: 'rerun.source', displayName: 'First Look Again' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales', 'Finance'] }],
    });
    expect(answer.status, answer.text).toBe(202);
    const instanceId = requestInstanceId(source);
    const ran = await t.host.driver.waitFor(instanceId, 20_000);
    const events = t.host.driver.history(instanceId);
    const started = events.find((event) => event.EventType === HISTORY_EVENT.ExecutionStarted);
    const history: RecordedHistory = {
      instanceId,
      input: JSON.parse(
        started?.EventType === HISTORY_EVENT.ExecutionStarted ? (started.Input ?? '') : '',
      ) as unknown,
      history: events,
      output: ran.output as RequestReport,
    };
    expect((history.input as { revision?: number }).revision).toBe(5);
    expect(scheduled(events).map((event) => event.Name)).not.toContain(ACTIVITIES.createAccount);

    // The same request for another account, stopped while its first look ran: that run took
    // the lease and sent the create, and its answer was lost with the process.
    const accountId = 'rerun.moved';
    const moved = JSON.parse(
      JSON.stringify(history)
        .replaceAll('rerun.source', accountId)
        .replaceAll(source, 'rerun-moved'),
    ) as RecordedHistory;
    const saved = stoppedAwaiting(moved, ACTIVITIES.connectorGate);
    const since = truthMark(scim.truthLog());
    const handlers = createActivityHandlers(async () => t.host.services);
    const lost = (await handlers.connectorGate(
      JSON.parse(scheduled(saved.history).at(-1)!.Input!) as never,
    )) as { ok: boolean; value: { created?: { value?: { outcome: string } } } };
    expect(lost.value.created?.value?.outcome).toBe('created');

    const { output, names } = await resume(saved);
    expect(output.status, JSON.stringify(output.steps)).toBe('succeeded');
    expect(output.steps[0]!.changes.map((change) => change.change)).toEqual(['account created']);
    expect(names).toEqual([
      ACTIVITIES.connectorGate,
      ACTIVITIES.readMemberships,
      ACTIVITIES.writeMemberships,
      ACTIVITIES.recordStep,
    ]);
    // The target's truth: one account made (by the first run), three memberships; the journal, the same.
    const committed = truthChanges(scim.truthLog(), since);
    expect(committed.filter((change) => change.endsWith('account created'))).toEqual([
      `${accountId} account created`,
    ]);
    expect(committed).toHaveLength(4);
    expect(journalChanges(await journalOfRequests(t, [output.requestId]))).toEqual(committed);
  });
});
