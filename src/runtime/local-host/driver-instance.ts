import type { OrchestrationState, RuntimeStatus } from '../../workflows/orchestration-client';
import { historyEvent, type HistoryEvent } from './history-events';
import type { ReplayView } from './orchestrator-replay';
import type { ReplayedAction } from './replayed-action';
import type { RetryPolicy } from './retry-policy';

/** An action the driver scheduled, with the episode that first produced it and its sequence id. */
export interface RecordedAction {
  action: ReplayedAction;
  /** 0-based index of the episode (OrchestratorStarted) that produced it. */
  episode: number;
  /** Sequence id of its first task or timer (a retried activity uses more ids later). */
  eventId: number;
}

/** The progress of one `callActivityWithRetry`, keyed by the id of its current attempt or timer. */
export interface RetryProgress {
  name: string;
  input: string | undefined;
  policy: RetryPolicy;
  failedAttempts: number;
  /** Waiting on the attempt's TaskCompleted/TaskFailed, or on the timer before the next attempt. */
  phase: 'attempt' | 'timer';
}

/** Why an instance failed: its own code threw, or the driver (as the host) stopped it. */
export interface InstanceFailure {
  source: 'orchestrator' | 'host';
  message: string;
}

/** Everything the driver keeps about one orchestration instance. */
export interface DriverInstance {
  instanceId: string;
  name: string;
  input: unknown;
  inputJson: string | undefined;
  runtimeStatus: RuntimeStatus;
  output: unknown;
  /**
   * The output as the JSON text its ExecutionCompleted event records, once the instance
   * ended here: status queries parse their own copy from it (a deep copy of the value cost
   * more). Undefined before the end, and for an instance resumed from a save.
   */
  outputJson?: string;
  /** The custom status as JSON text (as the task hub keeps it); undefined while none is set. */
  customStatusJson: string | undefined;
  failure?: InstanceFailure;
  createdAt: number;
  updatedAt: number;
  history: HistoryEvent[];
  /** Events waiting for the next episode. */
  inbox: HistoryEvent[];
  actions: RecordedAction[];
  retries: Map<number, RetryProgress>;
  nextEventId: number;
  episodes: number;
  /** The latest OrchestratorStarted time: episode times never go backwards. */
  lastEpisodeAt: number;
  /** An episode is scheduled or running. */
  episodeScheduled: boolean;
  /** Timers the orchestrator canceled: they never fire, after a restart neither. */
  canceledTimers: number[];
  /**
   * An ended instance's history and actions, packed (ended-record.ts): `history` and
   * `actions` are then empty. Read them through `runRecordOf`.
   */
  packed?: PackedRecord;
  /** The history as the executor read it in the last episode (while the instance runs). */
  replayView?: ReplayView;
  /**
   * What status queries show while the instance's end is not yet saved durably: the
   * instance as it was before it ended (its fields hold texts and values the end replaces,
   * never changes), turned into a state only if someone asks.
   */
  shown?: StateFields;
  /**
   * The W3C trace context it was started in (as Durable's distributed tracing keeps it):
   * its activities run in that trace. In memory only: after a restart they start traces
   * of their own.
   */
  traceContext?: Record<string, string>;
}

/** Where an ended instance's run record is kept: its bytes in a buffer shared with others. */
export interface PackedRecord {
  /** The batch's records, serialised one after the other and compressed together. */
  buffer: Buffer;
  /** Where the instance's serialised record starts and ends once the buffer is inflated. */
  start: number;
  end: number;
}

/** Runtime statuses after which an instance never runs again. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set([
  'Completed',
  'Failed',
  'Terminated',
  'Canceled',
]);

/** One instance as tests inspect it: its state, its full history and its scheduled actions. */
export interface InstanceSnapshot extends OrchestrationState {
  history: HistoryEvent[];
  actions: RecordedAction[];
}

/** A new instance: its ExecutionStarted waits for the first episode. */
export function newDriverInstance(
  instanceId: string,
  name: string,
  inputJson: string | undefined,
  now: number,
): DriverInstance {
  return {
    instanceId,
    name,
    input: parsedJson(inputJson),
    inputJson,
    runtimeStatus: 'Pending',
    output: undefined,
    customStatusJson: undefined,
    createdAt: now,
    updatedAt: now,
    history: [],
    inbox: [historyEvent.executionStarted(now, name, inputJson)],
    actions: [],
    retries: new Map(),
    nextEventId: 0,
    episodes: 0,
    lastEpisodeAt: now,
    episodeScheduled: false,
    canceledTimers: [],
  };
}

/** Ends an instance as the task hub records an end: completed with its output, or failed. */
export function endInstance(
  instance: DriverInstance,
  end: {
    at: number;
    updatedAt: number;
    failure: InstanceFailure | undefined;
    output?: unknown;
    /** The output's JSON text when the caller has it (the replay made it): not made again. */
    outputJson?: string;
  },
): void {
  const { at, failure } = end;
  if (failure === undefined) {
    instance.runtimeStatus = 'Completed';
    instance.output = end.output;
    const outputJson = end.outputJson ?? JSON.stringify(end.output);
    if (outputJson !== undefined) instance.outputJson = outputJson;
    instance.history.push(
      historyEvent.orchestratorCompleted(at),
      historyEvent.executionCompleted(at, 'Completed', outputJson),
    );
  } else {
    instance.runtimeStatus = 'Failed';
    instance.failure = failure;
    // As Durable reports it in the status query's output.
    const output = `Orchestrator function '${instance.name}' failed: ${failure.message}`;
    instance.output = output;
    instance.outputJson = JSON.stringify(output);
    instance.history.push(
      historyEvent.orchestratorCompleted(at),
      historyEvent.executionCompleted(at, 'Failed', output),
    );
  }
  instance.inbox = [];
  instance.retries.clear();
  delete instance.replayView;
  instance.updatedAt = end.updatedAt;
}

/** What the public state of an instance is made of. */
export type StateFields = Pick<
  DriverInstance,
  | 'instanceId'
  | 'name'
  | 'runtimeStatus'
  | 'inputJson'
  | 'output'
  | 'outputJson'
  | 'customStatusJson'
  | 'createdAt'
  | 'updatedAt'
>;

/** The fields of the instance's public state as they are now (a shallow copy). */
export function stateFieldsOf(instance: DriverInstance): StateFields {
  const { instanceId, name, runtimeStatus, inputJson, output, customStatusJson } = instance;
  const { createdAt, updatedAt, outputJson } = instance;
  return {
    instanceId,
    name,
    runtimeStatus,
    inputJson,
    output,
    ...(outputJson === undefined ? {} : { outputJson }),
    customStatusJson,
    createdAt,
    updatedAt,
  };
}

/** The public state of an instance (times as ISO strings from the driver clock). */
export function toOrchestrationState(instance: StateFields): OrchestrationState {
  return {
    instanceId: instance.instanceId,
    name: instance.name,
    runtimeStatus: instance.runtimeStatus,
    input: parsedJson(instance.inputJson),
    // The caller's own copy: parsed from the recorded text when there is one.
    output:
      instance.outputJson === undefined ? copy(instance.output) : parsedJson(instance.outputJson),
    customStatus: parsedJson(instance.customStatusJson),
    createdTime: new Date(instance.createdAt).toISOString(),
    lastUpdatedTime: new Date(instance.updatedAt).toISOString(),
  };
}

/** The value of a JSON text, the caller's own; undefined for none. */
export function parsedJson(text: string | undefined): unknown {
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/** A deep copy, so that callers cannot change what the driver recorded. */
export function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
