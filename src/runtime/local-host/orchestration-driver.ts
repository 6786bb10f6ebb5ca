import type { OrchestrationHandler } from 'durable-functions';
import { ProvisioningError } from '../../domain/errors';
import { silentLogger, type Logger } from '../../domain/logger';
import type { OrchestrationClient, OrchestrationState } from '../../workflows/orchestration-client';
import { ActivityRunner, type ActivityFunction, type ActivityOutcome } from './activity-runner';
import {
  copy,
  toOrchestrationState,
  type DriverInstance,
  type InstanceSnapshot,
} from './driver-instance';
import { historyEvent, type HistoryEvent } from './history-events';
import { createInvocationContext } from './invocation-context';
import { createReplayer, type Replayer } from './orchestrator-replay';
import { verifyInstanceReplay } from './replay-verification';
import { runEpisode, type EpisodeResult, type EpisodeWork } from './orchestration-episode';
import { TimerSchedule, type PendingTimer } from './timer-schedule';
import { clockNow, flowingClock, type DriverClock, type VirtualClockPort } from './virtual-clock';

export interface OrchestrationDriverOptions {
  orchestrators: Record<string, OrchestrationHandler>;
  activities: Record<string, ActivityFunction>;
  /** 'real' (default): timers on setTimeout. A virtual clock: timers fire when it reaches them. */
  clock?: DriverClock;
  /** With a virtual clock: jump to the next timer whenever nothing else can happen (default true). */
  autoAdvance?: boolean;
  logger?: Logger;
  maxConcurrentActivities?: number;
}

const FINAL = new Set(['Completed', 'Failed', 'Terminated', 'Canceled']);

/**
 * Runs the service's orchestrator generators without the Functions host, through
 * durable-functions' own TaskOrchestrationExecutor (platform-notes.md): each episode
 * replays the whole history, so replay determinism bugs surface as they would in Azure.
 * Activities run in-process; timers use the real clock or a virtual one.
 *
 * @example
 * const driver = new OrchestrationDriver({ orchestrators: { hello }, activities: { greet } });
 * await driver.startNew('hello', 'id-1', { name: 'Ada' });
 * const state = await driver.waitFor('id-1');
 */
export class OrchestrationDriver implements OrchestrationClient {
  private readonly instances = new Map<string, DriverInstance>();
  private readonly replayers = new Map<string, Replayer>();
  private readonly clock: DriverClock;
  /** The virtual clock, when the driver runs on one (time moves only when advanced). */
  private readonly virtual: VirtualClockPort | undefined;
  private readonly autoAdvance: boolean;
  private readonly logger: Logger;
  private readonly runner: ActivityRunner;
  private readonly timers: TimerSchedule;
  private readonly waiters = new Map<string, Set<(error?: Error) => void>>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly episodesRunning = new Set<Promise<void>>();
  private readonly unsubscribe: (() => void) | undefined;
  private pendingEpisodes = 0;
  private settleScheduled = false;
  private closed = false;

  constructor(private readonly options: OrchestrationDriverOptions) {
    this.clock = options.clock ?? 'real';
    this.virtual =
      flowingClock(this.clock) === undefined ? (this.clock as VirtualClockPort) : undefined;
    this.autoAdvance = this.virtual !== undefined && (options.autoAdvance ?? true);
    this.logger = options.logger ?? silentLogger;
    this.runner = new ActivityRunner(
      options.activities,
      Math.max(1, options.maxConcurrentActivities ?? 16),
      this.logger,
      () => this.scheduleSettle(),
    );
    this.timers = new TimerSchedule(this.clock, (timer) => this.onTimerFired(timer));
    this.unsubscribe = this.virtual?.onAdvance?.((now) => this.timers.fireDue(now));
  }

  /** Starts an instance unless one with this id exists, whatever its state (then `exists`). */
  async startNew(name: string, instanceId: string, input: unknown): Promise<'started' | 'exists'> {
    if (this.closed)
      throw new ProvisioningError('INTERNAL_ERROR', 'the orchestration driver is closed');
    if (this.instances.has(instanceId)) return 'exists';
    if (!Object.prototype.hasOwnProperty.call(this.options.orchestrators, name)) {
      throw new ProvisioningError('INTERNAL_ERROR', `orchestrator "${name}" is not registered`, {
        object: name,
      });
    }
    // The Durable client serializes the input: what JSON cannot carry is lost (or throws) here.
    const inputJson = input === undefined ? undefined : JSON.stringify(input);
    const now = this.now();
    const instance: DriverInstance = {
      instanceId,
      name,
      input: inputJson === undefined ? undefined : (JSON.parse(inputJson) as unknown),
      inputJson,
      runtimeStatus: 'Pending',
      output: undefined,
      customStatus: undefined,
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
    };
    this.instances.set(instanceId, instance);
    this.scheduleEpisode(instance);
    return 'started';
  }

  /** The instance's state, or undefined for an unknown id. */
  async getStatus(instanceId: string): Promise<OrchestrationState | undefined> {
    const instance = this.instances.get(instanceId);
    return instance === undefined ? undefined : toOrchestrationState(instance);
  }

  /**
   * Resolves with the final state once the instance completed or failed. Rejects after
   * `timeoutMs` of wall time, or at once when the instance stalled (nothing left to run).
   */
  waitFor(instanceId: string, timeoutMs = 30_000): Promise<OrchestrationState> {
    const instance = this.require(instanceId);
    if (FINAL.has(instance.runtimeStatus)) return Promise.resolve(toOrchestrationState(instance));
    return new Promise((resolve, reject) => {
      const waiters = this.waiters.get(instanceId) ?? new Set();
      this.waiters.set(instanceId, waiters);
      const waiter = (error?: Error): void => {
        clearTimeout(timeout);
        waiters.delete(waiter);
        if (error === undefined) resolve(toOrchestrationState(instance));
        else reject(error);
      };
      const timeout = setTimeout(() => {
        const status = instance.runtimeStatus;
        waiter(
          new ProvisioningError(
            'INTERNAL_ERROR',
            `orchestration "${instanceId}" did not finish within ${timeoutMs} ms (status ${status})`,
            { object: instanceId },
          ),
        );
      }, timeoutMs);
      waiters.add(waiter);
      this.scheduleSettle();
    });
  }

  /**
   * Resolves when no activity is queued or running, no replay is pending and no timer will
   * fire by itself (real-clock timers and auto-advanced virtual ones count as pending;
   * timers of a virtual clock the test advances by hand do not).
   */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.scheduleSettle();
    });
  }

  /** The recorded history of an instance (a copy). */
  history(instanceId: string): HistoryEvent[] {
    return copy(this.require(instanceId).history);
  }

  /** Every instance with its state, history and scheduled actions: what the driver keeps, for inspection. */
  snapshot(): InstanceSnapshot[] {
    return [...this.instances.values()].map((instance) => ({
      ...toOrchestrationState(instance),
      history: copy(instance.history),
      actions: copy(instance.actions),
    }));
  }

  /**
   * Replays the instance on every prefix of its history (cut at each OrchestratorStarted)
   * and throws a ProvisioningError naming the first action that differs from the record.
   */
  async verifyReplay(instanceId: string): Promise<void> {
    const instance = this.require(instanceId);
    await verifyInstanceReplay(instance, this.replayer(instance.name), () =>
      createInvocationContext(instance.name, this.logger, { instanceId, replay: 'verify' }),
    );
  }

  /** Cancels timers, waits for running activities and replays, and refuses new work. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    this.timers.clear();
    await Promise.all([this.runner.drain(), ...this.episodesRunning]);
    for (const [instanceId, list] of this.waiters) {
      const error = new ProvisioningError(
        'INTERNAL_ERROR',
        `the driver closed before "${instanceId}" finished`,
      );
      for (const waiter of [...list]) waiter(error);
    }
    this.waiters.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private require(instanceId: string): DriverInstance {
    const instance = this.instances.get(instanceId);
    if (instance === undefined) {
      throw new ProvisioningError('NOT_FOUND', `orchestration "${instanceId}" not found`, {
        object: instanceId,
      });
    }
    return instance;
  }

  private now(): number {
    return clockNow(this.clock);
  }

  private replayer(name: string): Replayer {
    let replayer = this.replayers.get(name);
    if (replayer === undefined) {
      const handler = this.options.orchestrators[name];
      if (handler === undefined)
        throw new ProvisioningError('INTERNAL_ERROR', `orchestrator "${name}" is not registered`);
      replayer = createReplayer(handler);
      this.replayers.set(name, replayer);
    }
    return replayer;
  }

  private scheduleEpisode(instance: DriverInstance): void {
    if (instance.episodeScheduled || this.closed) return;
    instance.episodeScheduled = true;
    this.pendingEpisodes += 1;
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.runEpisodes(instance))
      .catch((error: unknown) => {
        this.logger.error(`orchestration driver: episode failed unexpectedly: ${String(error)}`, {
          instanceId: instance.instanceId,
        });
      })
      .finally(() => {
        instance.episodeScheduled = false;
        this.pendingEpisodes -= 1;
        this.episodesRunning.delete(run);
        if (instance.inbox.length > 0 && !FINAL.has(instance.runtimeStatus))
          this.scheduleEpisode(instance);
        this.scheduleSettle();
      });
    this.episodesRunning.add(run);
  }

  private async runEpisodes(instance: DriverInstance): Promise<void> {
    while (!this.closed && instance.inbox.length > 0 && !FINAL.has(instance.runtimeStatus)) {
      const result = await runEpisode(instance, {
        replay: this.replayer(instance.name),
        now: () => this.now(),
        hasActivity: (name) => this.runner.has(name),
        newContext: () =>
          createInvocationContext(instance.name, this.logger, { instanceId: instance.instanceId }),
      }).catch((error: unknown): EpisodeResult => ({
        kind: 'failed',
        at: this.now(),
        failure: {
          source: 'host',
          message: `the local driver could not replay the orchestration: ${error instanceof Error ? error.message : String(error)}`,
        },
      }));
      if (result.kind === 'completed') this.finish(instance, result.at, undefined, result.output);
      else if (result.kind === 'failed') this.finish(instance, result.at, result.failure);
      else {
        for (const timerId of result.canceledTimers)
          this.timers.cancel(instance.instanceId, timerId);
        for (const item of result.work) this.startWork(instance, item);
      }
    }
  }

  private startWork(instance: DriverInstance, item: EpisodeWork): void {
    if (item.kind === 'timer') {
      this.timers.add({
        instanceId: instance.instanceId,
        timerId: item.eventId,
        fireAt: item.fireAt,
      });
      if (this.virtual !== undefined) this.timers.fireDue(this.virtual.now());
      return;
    }
    this.runner.enqueue({
      instanceId: instance.instanceId,
      name: item.name,
      input: item.input,
      done: (outcome) => this.onActivityDone(instance, item.eventId, outcome),
    });
  }

  private onActivityDone(
    instance: DriverInstance,
    eventId: number,
    outcome: ActivityOutcome,
  ): void {
    if (this.closed || FINAL.has(instance.runtimeStatus)) return;
    const at = this.now();
    instance.inbox.push(
      outcome.ok
        ? historyEvent.taskCompleted(at, eventId, outcome.result)
        : historyEvent.taskFailed(at, eventId, outcome.reason, outcome.details),
    );
    this.scheduleEpisode(instance);
  }

  private onTimerFired(timer: PendingTimer): void {
    const instance = this.instances.get(timer.instanceId);
    if (instance === undefined || this.closed || FINAL.has(instance.runtimeStatus)) return;
    instance.inbox.push(historyEvent.timerFired(this.now(), timer.timerId, timer.fireAt));
    this.scheduleEpisode(instance);
  }

  private finish(
    instance: DriverInstance,
    at: number,
    failure: DriverInstance['failure'],
    output?: unknown,
  ): void {
    if (failure === undefined) {
      instance.runtimeStatus = 'Completed';
      instance.output = output;
      instance.history.push(
        historyEvent.orchestratorCompleted(at),
        historyEvent.executionCompleted(at, 'Completed', JSON.stringify(output)),
      );
    } else {
      instance.runtimeStatus = 'Failed';
      instance.failure = failure;
      // As Durable reports it in the status query's output.
      instance.output = `Orchestrator function '${instance.name}' failed: ${failure.message}`;
      instance.history.push(
        historyEvent.orchestratorCompleted(at),
        historyEvent.executionCompleted(at, 'Failed', instance.output as string),
      );
      this.logger.warn(`orchestration ${instance.name} failed`, {
        instanceId: instance.instanceId,
      });
    }
    instance.inbox = [];
    instance.retries.clear();
    instance.updatedAt = this.now();
    // Outstanding timers of a finished instance never reach it (the task hub discards them).
    this.timers.cancel(instance.instanceId);
    for (const waiter of [...(this.waiters.get(instance.instanceId) ?? [])]) waiter();
    this.waiters.delete(instance.instanceId);
  }

  private scheduleSettle(): void {
    if (this.settleScheduled) return;
    this.settleScheduled = true;
    setImmediate(() => {
      this.settleScheduled = false;
      this.settle();
    });
  }

  /** Auto-advance and idle detection, once nothing else can happen. */
  private settle(): void {
    if (this.runner.busy || this.pendingEpisodes > 0) return;
    if (!this.closed && this.autoAdvance && this.virtual !== undefined) {
      const earliest = this.timers.earliest();
      if (earliest !== undefined) {
        this.virtual.advanceTo(earliest);
        this.timers.fireDue(this.virtual.now());
        this.scheduleSettle();
        return;
      }
    }
    if (!this.closed && this.virtual === undefined && this.timers.size > 0) return;
    this.rejectStalled();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /**
   * Nothing is left that could move a running instance without a timer of its own: it
   * waits for something the driver never delivers (an external event, a retry the host
   * would not schedule, an id the executor does not expect). Its waiters learn it now
   * rather than at their timeout.
   */
  private rejectStalled(): void {
    for (const [instanceId, list] of this.waiters) {
      const instance = this.instances.get(instanceId);
      if (list.size === 0 || instance === undefined || FINAL.has(instance.runtimeStatus)) continue;
      if (this.closed || this.timers.has(instanceId)) continue;
      const error = new ProvisioningError(
        'INTERNAL_ERROR',
        `orchestration "${instanceId}" (${instance.name}) stalled: it waits for nothing the driver will deliver`,
        { object: instanceId },
      );
      this.logger.warn(`orchestration ${instance.name} stalled`, { instanceId });
      this.waiters.delete(instanceId);
      for (const waiter of [...list]) waiter(error);
    }
  }
}
