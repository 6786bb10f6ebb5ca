import { afterAll, beforeAll } from 'vitest';
import { submitProvisioningRequest } from '../../src/api/submit-request';
import { loadConfig } from '../../src/config/app-config';
import type { ConnectorSettings } from '../../src/config/connector-settings';
import { connectorSettingsKinds } from '../../src/connectors/connector-kinds';
import type { JournalEntry } from '../../src/domain/journal-entry';
import { silentLogger, type Logger } from '../../src/domain/logger';
import type { RequestReport } from '../../src/domain/request-report';
import {
  startSandboxConnectors,
  type SandboxConnectors,
} from '../../src/runtime/sandbox-connectors';
import { startServiceRuntime, type ServiceRuntime } from '../../src/runtime/service-runtime';
import { ScaledClock, VirtualClock } from '../../src/runtime/local-host/virtual-clock';
import { LocalSecretStore } from '../../src/secrets/local-secret-store';
import { HISTORY_EVENT } from '../../src/runtime/local-host/history-events';
import {
  ACTIVITIES,
  jobInstanceId,
  ORCHESTRATIONS,
  requestInstanceId,
} from '../../src/workflows/names';

export const SCIM = 'scim-sandbox';
export const GRAPH = 'graph-sandbox';

/** The service as it runs in production, on loopback: sandboxes, Azurite, real activities. */
export interface ServiceBench {
  clock: VirtualClock | ScaledClock;
  runtime: ServiceRuntime;
  sandboxes: SandboxConnectors;
  secrets: LocalSecretStore;
  /** Submits a request body as `POST /api/requests` does; returns its requestId. */
  submit(body: Record<string, unknown>): Promise<string>;
  /** Waits for a request's orchestration and returns its report (replay checked). */
  finish(requestId: string, timeoutMs?: number): Promise<RequestReport>;
  /** Submits and finishes. */
  run(body: Record<string, unknown>): Promise<RequestReport>;
  /** The journal of one account. */
  journal(connector: string, accountId: string): Promise<JournalEntry[]>;
  close(): Promise<void>;
}

export interface ServiceBenchOptions {
  /** `virtual` (default): durable timers jump; a number: real time sped up that many times. */
  clock?: 'virtual' | number;
  /** Changes the sandbox connectors' settings (they are validated already). */
  connectorSettings?: (settings: ConnectorSettings) => ConnectorSettings;
  logger?: Logger;
  maxConcurrentActivities?: number;
}

/**
 * Starts the service bench for one test file (beforeAll / afterAll): the SCIM and Graph
 * sandboxes configured as "scim-sandbox" and "graph-sandbox", an in-process Azurite, and
 * the production orchestrators and activities on the local replay driver. Tests judge the
 * sandboxes' truth, never the service's report alone.
 */
export async function startServiceBench(options: ServiceBenchOptions = {}): Promise<ServiceBench> {
  const start = Date.parse('2026-11-23T08:00:00Z');
  const clock =
    options.clock === undefined || options.clock === 'virtual'
      ? new VirtualClock(start)
      : new ScaledClock(options.clock, start);
  const sandboxes = await startSandboxConnectors({ now: () => clock.now() });
  const secrets = new LocalSecretStore({ ...sandboxes.secrets });
  const config = {
    ...loadConfig({}, connectorSettingsKinds()),
    connectors: sandboxes.settings.map(options.connectorSettings ?? ((settings) => settings)),
  };
  let runtime: ServiceRuntime;
  try {
    runtime = await startServiceRuntime({
      config,
      logger: options.logger ?? silentLogger,
      secrets,
      trustedCa: sandboxes.trustedCa,
      clock: clock,
      ...(options.maxConcurrentActivities === undefined
        ? {}
        : { maxConcurrentActivities: options.maxConcurrentActivities }),
    });
  } catch (error) {
    await sandboxes.close();
    throw error;
  }
  const submit = async (body: Record<string, unknown>): Promise<string> => {
    const outcome = await submitProvisioningRequest(body, runtime.services, runtime.driver, {
      source: 'http',
      now: new Date(clock.now()),
    });
    if (outcome.kind !== 'started' && outcome.kind !== 'duplicate') {
      throw new Error(`request not started: ${JSON.stringify(outcome)}`);
    }
    return outcome.requestId;
  };
  const finish = async (requestId: string, timeoutMs = 20_000): Promise<RequestReport> => {
    const instanceId = requestInstanceId(requestId);
    const state = await runtime.driver.waitFor(instanceId, timeoutMs);
    if (state.runtimeStatus !== 'Completed') {
      throw new Error(
        `request ${requestId} ended ${state.runtimeStatus}: ${JSON.stringify(state.output)}`,
      );
    }
    await runtime.driver.verifyReplay(instanceId);
    return state.output as RequestReport;
  };
  return {
    clock,
    runtime,
    sandboxes,
    secrets,
    submit,
    finish,
    run: async (body) => finish(await submit(body)),
    journal: async (connector, accountId) => {
      const page = await runtime.services.journal.query({ connector, accountId, limit: 1000 });
      return page.entries;
    },
    close: async () => {
      await runtime.close();
      await sandboxes.close();
    },
  };
}

/** Runs the catalogue import job of a connector to its end, as the API starts it. */
export async function importCatalogue(bench: ServiceBench, connector: string): Promise<void> {
  const jobId = `catalogue-${connector}`;
  const type = connector === SCIM ? 'Import SCIM groups' : 'Import Directory Groups';
  await bench.runtime.driver.startNew(ORCHESTRATIONS.catalogueImport, jobInstanceId(jobId), {
    jobId,
    type,
    connector,
    trigger: 'api',
  });
  const state = await bench.runtime.driver.waitFor(jobInstanceId(jobId), 10_000);
  const status = (state.output as { status?: string } | null)?.status;
  if (status !== 'succeeded') throw new Error(`the import of ${connector} ended ${status}`);
}

/**
 * The service bench of one test file: started in `beforeAll`, closed in `afterAll`. The
 * bench it returns stands for the started one (reading it before `beforeAll` ran throws).
 */
export function useServiceBench(options: ServiceBenchOptions = {}): ServiceBench {
  let current: ServiceBench | undefined;
  beforeAll(async () => {
    current = await startServiceBench(options);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as ServiceBench, {
    get(_, key) {
      if (current === undefined) throw new Error('the service bench starts in beforeAll');
      return Reflect.get(current, key) as unknown;
    },
  });
}

/** The calls of one activity in a request's orchestration, in the order they were scheduled. */
export function requestActivityCalls(
  bench: ServiceBench,
  requestId: string,
  name: string,
): ActivityCall[] {
  return activityCalls(bench, requestInstanceId(requestId)).filter((call) => call.name === name);
}

/**
 * A request's polls for its account's lease, in order: the first rides on its first look at
 * the connector (the gate takes the lease when the connector is open), the others are
 * lease activities of their own. Each as a lease call: its input and its LeaseResult.
 */
export function leaseCalls(bench: ServiceBench, requestId: string): ActivityCall[] {
  return activityCalls(bench, requestInstanceId(requestId)).flatMap((call): ActivityCall[] => {
    if (call.name === ACTIVITIES.acquireAccountLease) return [call];
    const lease = (call.input as { lease?: unknown } | undefined)?.lease;
    if (call.name !== ACTIVITIES.connectorGate || lease === undefined) return [];
    const answer = call.result as { ok: boolean; value?: { lease?: unknown } } | undefined;
    // A gate that found the connector quarantined took no lease: no poll.
    if (answer?.ok === true && answer.value?.lease === undefined) return [];
    return [
      {
        ...call,
        name: ACTIVITIES.acquireAccountLease,
        input: lease,
        ...(answer === undefined
          ? {}
          : { result: answer.ok ? { ok: true, value: answer.value?.lease } : answer }),
      },
    ];
  });
}

/**
 * A request's creates of its account, in order: the first rides on its first look at the
 * connector when the request starts with one (revision 5: the gate sends it once it took the
 * lease), the others are createAccount activities of their own. Each as a createAccount call:
 * its input as sent and its answer (a gate that sent no create, or failed, is none).
 */
export function createCalls(bench: ServiceBench, requestId: string): ActivityCall[] {
  return activityCalls(bench, requestInstanceId(requestId)).flatMap((call): ActivityCall[] => {
    if (call.name === ACTIVITIES.createAccount) return [call];
    const create = (call.input as { create?: object } | undefined)?.create;
    if (call.name !== ACTIVITIES.connectorGate || create === undefined) return [];
    const answer = call.result as
      { ok: boolean; value?: { created?: unknown; lease?: { record?: unknown } } } | undefined;
    if (answer?.ok !== true || answer.value?.created === undefined) return [];
    // Sent with the record the lease read, as the create's own activity is.
    const stored = answer.value.lease?.record ?? null;
    return [
      {
        ...call,
        name: ACTIVITIES.createAccount,
        input: { ...create, stored },
        result: answer.value.created,
      },
    ];
  });
}

/**
 * The call that released a request's account lease: the last step's record write, which
 * releases it in the same write, or the release of its own when no record was written.
 */
export function leaseReleaseOf(
  bench: ServiceBench,
  requestId: string,
): ActivityCall & { answeredAt: number } {
  const release = activityCalls(bench, requestInstanceId(requestId)).find(
    (call) =>
      call.answeredAt !== undefined &&
      (call.result as { ok?: boolean } | undefined)?.ok === true &&
      (call.name === ACTIVITIES.releaseAccountLease ||
        (call.name === ACTIVITIES.recordStep &&
          (call.input as { release?: unknown }).release === true)),
  );
  if (release === undefined) throw new Error(`${requestId} never released its lease`);
  return release as ActivityCall & { answeredAt: number };
}

/** One activity call of an orchestration, from its history: what a test can see of the service's steps. */
export interface ActivityCall {
  name: string;
  input: unknown;
  /** Virtual (or scaled) time the call was scheduled and answered, in ms. */
  scheduledAt: number;
  answeredAt?: number;
  /** The activity's result (an ActivityResult), when it completed. */
  result?: unknown;
  /** The failure message, when it failed (a retryable failure Durable retried). */
  failure?: string;
}

/** The activity calls of an instance in the order they were scheduled (retries included). */
export function activityCalls(bench: ServiceBench, instanceId: string): ActivityCall[] {
  const calls = new Map<number, ActivityCall>();
  for (const event of bench.runtime.driver.history(instanceId)) {
    if (event.EventType === HISTORY_EVENT.TaskScheduled) {
      calls.set(event.EventId, {
        name: event.Name,
        input: event.Input === undefined ? undefined : (JSON.parse(event.Input) as unknown),
        scheduledAt: Date.parse(event.Timestamp),
      });
    } else if (
      event.EventType === HISTORY_EVENT.TaskCompleted ||
      event.EventType === HISTORY_EVENT.TaskFailed
    ) {
      const call = calls.get(event.TaskScheduledId);
      if (call === undefined) continue;
      call.answeredAt = Date.parse(event.Timestamp);
      if (event.EventType === HISTORY_EVENT.TaskCompleted) {
        call.result = JSON.parse(event.Result) as unknown;
      } else call.failure = event.Reason;
    }
  }
  return [...calls.values()];
}
