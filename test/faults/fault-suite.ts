import { silentLogger } from '../../src/domain/logger';
import type { JournalEntry } from '../../src/domain/journal-entry';
import type { RequestReport } from '../../src/domain/request-report';
import { startLocalHost, type LocalHost } from '../../src/runtime/local-host/local-host';
import { ScaledClock } from '../../src/runtime/local-host/virtual-clock';
import type { SandboxFaultPlan } from '../../src/sandbox/faults';
import { HISTORY_EVENT } from '../../src/runtime/local-host/history-events';
import { ORCHESTRATIONS, jobInstanceId, requestInstanceId } from '../../src/workflows/names';
import { ABSENT, applyRequest, differences, type AccountState } from './expected-state';
import { LAG_CODES, failureOf, judgeJournal, type RequestRun } from './judge';
import { trueChanges, trueState } from './truth';
import { planWorkload, requestBody, type AccountScript, type PlannedRequest } from './workload';

export const CONNECTORS: readonly { name: string; domain?: string }[] = [
  { name: 'scim-sandbox' },
  { name: 'graph-sandbox', domain: 'contoso.example' },
];

export interface FaultSuiteOptions {
  seed: number;
  accountsPerConnector: number;
  /** Batches per account after its create. */
  batches: [number, number];
  /** How many times faster than real time the clock of the whole run goes. */
  scale: number;
  /** Graph: each read draws its own lag in this range (ms). */
  lagMs: { min: number; max: number };
  /** Graph: a new user is invisible to writes for a lag drawn in this range (ms). */
  newObjectWriteLagMs: { min: number; max: number };
  faults: Omit<SandboxFaultPlan, 'seed'>;
  concurrentShare: number;
  queueShare: number;
  /** Accounts whose scripts run at once. */
  parallelAccounts: number;
  /** Reads lag beyond the 30 s window: failures that name the groups are what must happen. */
  lagBeyondWindow?: boolean;
  connectors?: readonly string[];
  /** Prints the activity trail of every request judged wrong (FAULT_TRACE=1). */
  trace?: (line: string) => void;
}

export interface ConnectorTally {
  connector: string;
  requests: number;
  succeeded: number;
  faults: Record<string, number>;
  falseSuccesses: string[];
  falseFailures: string[];
  failedByThrottling: number;
  failedByLag: number;
  expectedLagFailures: number;
  journalMissing: string[];
  journalDoubled: string[];
  journalInvented: string[];
  wrongMemberships: string[];
}

export interface FaultSuiteResult {
  tallies: ConnectorTally[];
  wallMs: number;
  virtualMs: number;
  replays: number;
}

/**
 * The fault suite (issue 10): a seeded workload through the real orchestrations of the
 * local host (queue poller, API, replay driver, activities, Azurite), against both
 * sandboxes with their faults on, on a clock sped up `scale` times. It judges the service
 * only by the sandboxes' truth: false successes, false failures, the journal against the
 * true changes, and the memberships the accounts end with.
 */
export async function runFaultSuite(options: FaultSuiteOptions): Promise<FaultSuiteResult> {
  const started = Date.now();
  const clock = new ScaledClock(options.scale);
  const virtualStart = clock.now();
  const host = await startLocalHost({
    env: { LOG_LEVEL: 'error' },
    port: 0,
    clock,
    logger: silentLogger,
    queuePollMs: 20,
    queueVisibilitySeconds: 5,
  });
  try {
    const sandboxes = host.sandboxes!;
    await importCatalogues(host);
    sandboxes.graph.setReplicationDelay(options.lagMs);
    sandboxes.graph.setNewObjectWriteLag(options.newObjectWriteLagMs);
    sandboxes.graph.setFaults({ seed: options.seed, ...options.faults });
    sandboxes.scim.setFaults({ seed: options.seed + 1, ...options.faults });

    const connectors = CONNECTORS.filter(
      (c) => options.connectors === undefined || options.connectors.includes(c.name),
    );
    const scripts = planWorkload({
      seed: options.seed,
      connectors: [...connectors],
      accountsPerConnector: options.accountsPerConnector,
      batches: options.batches,
      concurrentShare: options.concurrentShare,
      queueShare: options.queueShare,
    });
    const tallies = new Map(connectors.map((c) => [c.name, emptyTally(c.name)]));
    const runs: RequestRun[] = [];
    const finalStates = new Map<AccountScript, AccountState>();
    let batchNumber = 0;
    await inPool(scripts, options.parallelAccounts, async (script) => {
      const tally = tallies.get(script.connector)!;
      let expected: AccountState = ABSENT;
      for (const batch of script.batches) {
        const batchId = ++batchNumber;
        const startedAt = clock.now();
        const reports = await Promise.all(batch.map((request) => runRequest(host, request)));
        const finishedAt = clock.now();
        batch.forEach((request, i) =>
          runs.push({ request, report: reports[i]!, startedAt, finishedAt, batch: batchId }),
        );
        const truth = trueState(sandboxes, script.connector, script.accountId);
        let allSucceeded = true;
        reports.forEach((report, i) => {
          tally.requests += 1;
          if (report.status === 'succeeded') {
            tally.succeeded += 1;
            return;
          }
          allSucceeded = false;
          const before = tally.falseFailures.length;
          judgeFailure(tally, batch[i]!, report, options.lagBeyondWindow === true);
          if (tally.falseFailures.length > before) traceRequest(host, batch[i]!, options.trace);
        });
        if (allSucceeded) {
          for (const request of batch) expected = applyRequest(expected, request);
          const wrong = differences(expected, truth);
          if (wrong.length > 0) {
            for (const request of batch) {
              tally.falseSuccesses.push(
                `${request.requestId} (${describeActions(request)}): ${wrong.join('; ')}`,
              );
            }
            expected = truth;
          }
        } else {
          // What a failed request did is not known: go on from the truth.
          expected = truth;
        }
      }
      finalStates.set(script, expected);
    });

    for (const script of scripts) {
      const tally = tallies.get(script.connector)!;
      const truth = trueState(sandboxes, script.connector, script.accountId);
      const expected = finalStates.get(script) ?? ABSENT;
      const missing = expected.groups.filter((group) => !truth.groups.includes(group));
      const unexpected = truth.groups.filter((group) => !expected.groups.includes(group));
      if (missing.length + unexpected.length > 0) {
        tally.wrongMemberships.push(
          `${script.accountId}: missing [${missing.join(', ')}], unexpected [${unexpected.join(', ')}]`,
        );
      }
      const journal = await journalOf(host, script.connector, script.accountId);
      const own = runs.filter(
        (run) =>
          run.request.accountId === script.accountId && run.request.connector === script.connector,
      );
      const changes = trueChanges(sandboxes, script.connector, script.accountId);
      const verdict = judgeJournal(own, journal, changes);
      // Soak only: a true change outside every request window of the account is claimed by none.
      for (const change of changes) {
        if (!own.some((run) => change.at >= run.startedAt && change.at <= run.finishedAt)) {
          verdict.missing.push(
            `UNCLAIMED ${script.accountId}: ${iso(change.at)} ${change.change}${change.group === undefined ? '' : ` ${change.group}`}`,
          );
        }
      }
      // Soak only: journal entries whose requestId is none of the account's requests.
      const ids = new Set(own.map((run) => run.request.requestId));
      for (const entry of journal) {
        if (entry.requestId === undefined || !ids.has(entry.requestId)) {
          verdict.invented.push(
            `FOREIGN ${script.accountId}: ${entry.requestId ?? '(none)'} ${entry.change}`,
          );
        }
      }
      tally.journalMissing.push(...verdict.missing);
      tally.journalDoubled.push(...verdict.doubled);
      tally.journalInvented.push(...verdict.invented);
      const wrong = new Set(
        [...verdict.missing, ...verdict.doubled, ...verdict.invented].map(
          (line) => line.split(':')[0],
        ),
      );
      for (const run of own.filter((r) => wrong.has(r.request.requestId))) {
        traceRequest(host, run.request, options.trace);
        options.trace?.(
          `  its window ${iso(run.startedAt)} .. ${iso(run.finishedAt)}; the account's true changes: ` +
            changes
              .map((t) => `${iso(t.at)} ${t.change}${t.group === undefined ? '' : ` ${t.group}`}`)
              .join('; '),
        );
      }
    }
    for (const connector of connectors) {
      const tally = tallies.get(connector.name)!;
      const sandbox = connector.name === 'scim-sandbox' ? sandboxes.scim : sandboxes.graph;
      tally.faults = { ...sandbox.faultCounts() };
      const own = scripts.filter((s) => s.connector === connector.name);
      const requests = own.flatMap((s) => s.batches.flat());
      tally.faults['duplicate delivery'] = requests.filter((r) => r.via === 'queue twice').length;
      tally.faults['concurrent request'] =
        own.flatMap((s) => s.batches).filter((b) => b.length > 1).length * 2;
    }
    const replays = countReplays(host, runs);
    // Soak only: a duplicate delivery must not end in the poison queue.
    const poisoned = await host.services.bulkQueue.peekPoison(32);
    for (const record of poisoned) {
      tallies
        .get(connectors[0]!.name)!
        .journalInvented.push(
          `POISON ${record.reason} ${JSON.stringify(record.message).slice(0, 120)}`,
        );
    }
    return {
      tallies: [...tallies.values()],
      wallMs: Date.now() - started,
      virtualMs: clock.now() - virtualStart,
      replays,
    };
  } finally {
    await host.close();
  }
}

function judgeFailure(
  tally: ConnectorTally,
  request: PlannedRequest,
  report: RequestReport,
  lagBeyond: boolean,
): void {
  const error = failureOf(report);
  const code = error?.code ?? 'unknown';
  const line = `${request.requestId} (${describeActions(request)}): ${code} ${error?.message ?? ''}`;
  if (code === 'TARGET_THROTTLED') tally.failedByThrottling += 1;
  const namesGroups =
    code !== 'MEMBERSHIP_MISMATCH' ||
    ((error?.details?.missing as unknown[]) ?? []).length +
      ((error?.details?.unexpected as unknown[]) ?? []).length >
      0;
  if (LAG_CODES.has(code)) {
    if (lagBeyond && namesGroups) {
      tally.expectedLagFailures += 1;
      return;
    }
    tally.failedByLag += 1;
  }
  tally.falseFailures.push(line);
}

/** Submits one request the way the workload says (HTTP, the bulk queue, or the queue twice) and waits for its report. */
async function runRequest(host: LocalHost, request: PlannedRequest): Promise<RequestReport> {
  const body = requestBody(request);
  if (request.via === 'http') {
    const answer = await fetch(`${host.url}/api/requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-functions-key': host.apiKey },
      body: JSON.stringify(body),
    });
    if (answer.status !== 202)
      throw new Error(
        `${request.requestId}: POST /api/requests answered ${answer.status}: ${await answer.text()}`,
      );
  } else {
    await host.services.bulkQueue.send(body);
    if (request.via === 'queue twice') await host.services.bulkQueue.send(body);
  }
  const instanceId = requestInstanceId(request.requestId);
  while ((await host.driver.getStatus(instanceId)) === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const state = await host.driver.waitFor(instanceId, 300_000);
  if (state.runtimeStatus !== 'Completed') {
    throw new Error(
      `${request.requestId}: the orchestration ended ${state.runtimeStatus}: ${JSON.stringify(state.output)}`,
    );
  }
  return state.output as RequestReport;
}

/** The activities a request ran, with the times and the answers: the evidence behind a verdict. */
function traceRequest(
  host: LocalHost,
  request: PlannedRequest,
  print?: (line: string) => void,
): void {
  if (print === undefined) return;
  print(`trace of ${request.requestId} (${describeActions(request)}), ${request.accountId}:`);
  const scheduled = new Map<number, { name: string; at: string }>();
  for (const event of host.driver.history(requestInstanceId(request.requestId))) {
    if (event.EventType === HISTORY_EVENT.TaskScheduled) {
      scheduled.set(event.EventId, { name: event.Name, at: event.Timestamp });
    } else if (event.EventType === HISTORY_EVENT.TaskCompleted) {
      const call = scheduled.get(event.TaskScheduledId);
      print(
        `  ${call?.at ?? '?'} ${call?.name ?? '?'} -> ${event.Timestamp} ${event.Result.slice(0, Number(process.env.FAULT_TRACE_CHARS ?? 300))}`,
      );
    } else if (event.EventType === HISTORY_EVENT.TaskFailed) {
      const call = scheduled.get(event.TaskScheduledId);
      print(
        `  ${call?.at ?? '?'} ${call?.name ?? '?'} -> ${event.Timestamp} FAILED ${event.Reason.slice(0, Number(process.env.FAULT_TRACE_CHARS ?? 300))}`,
      );
    } else if (event.EventType === HISTORY_EVENT.TimerFired) {
      print(`  timer fired at ${event.Timestamp}`);
    }
  }
}

async function importCatalogues(host: LocalHost): Promise<void> {
  for (const connector of CONNECTORS) {
    const jobId = `catalogue-${connector.name}`;
    await host.driver.startNew(ORCHESTRATIONS.catalogueImport, jobInstanceId(jobId), {
      jobId,
      type: connector.name === 'scim-sandbox' ? 'Import SCIM groups' : 'Import Directory Groups',
      connector: connector.name,
      trigger: 'api',
    });
    await host.driver.waitFor(jobInstanceId(jobId), 60_000);
  }
}

async function journalOf(
  host: LocalHost,
  connector: string,
  accountId: string,
): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await host.services.journal.query({
      connector,
      accountId,
      limit: 1000,
      ...(continuationToken === undefined ? {} : { continuationToken }),
    });
    entries.push(...page.entries);
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined);
  return entries;
}

/** Every episode replays the whole history from the start (OrchestratorStarted marks one). */
function countReplays(host: LocalHost, runs: readonly RequestRun[]): number {
  let replays = 0;
  for (const run of runs) {
    const history = host.driver.history(requestInstanceId(run.request.requestId));
    replays += history.filter(
      (event) => event.EventType === HISTORY_EVENT.OrchestratorStarted,
    ).length;
  }
  return replays;
}

async function inPool<T>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, size) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(workers);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function describeActions(request: PlannedRequest): string {
  return request.actions
    .map((action) =>
      'groups' in action ? `${action.type} [${action.groups.join(', ')}]` : action.type,
    )
    .join(', ');
}

function emptyTally(connector: string): ConnectorTally {
  return {
    connector,
    requests: 0,
    succeeded: 0,
    faults: {},
    falseSuccesses: [],
    falseFailures: [],
    failedByThrottling: 0,
    failedByLag: 0,
    expectedLagFailures: 0,
    journalMissing: [],
    journalDoubled: [],
    journalInvented: [],
    wrongMemberships: [],
  };
}
