import { context, propagation } from '@opentelemetry/api';
import type { OrchestrationHandler } from 'durable-functions';
import { ProvisioningError } from '../../domain/errors';
import { silentLogger, type Logger } from '../../domain/logger';
import type { OrchestrationClient, OrchestrationState } from '../../workflows/orchestration-client';
import { ActivityRunner, type ActivityFunction, type ActivityOutcome } from './activity-runner';
import {
  endInstance,
  FINAL_STATUSES as FINAL,
  newDriverInstance,
  stateFieldsOf,
  toOrchestrationState,
  type DriverInstance,
  type InstanceSnapshot,
  type StateFields,
} from './driver-instance';
import { EndedRecords, runRecordOf } from './ended-record';
import { historyEvent, type HistoryEvent } from './history-events';
import type { HistoryStore } from './history-store';
import { InstanceSaver } from './instance-saver';
import { InstanceWaiters } from './instance-waiters';
import { createInvocationContext } from './invocation-context';
import { createReplayer, type Replayer } from './orchestrator-replay';
import { verifyInstanceReplay } from './replay-verification';
import { SaveGate } from './save-gate';
import { StartWaiters } from './start-waiters';
import { StartingInstances } from './starting-instances';
import { runEpisode, type EpisodeResult, type EpisodeWork } from './orchestration-episode';
import { resumeInstance } from './resumed-instance';
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
  /**
   * Where histories are kept (the local host's state folder): every instance is saved as it
   * runs, and `restore()` resumes them after a restart. Default: in memory only.
   */
  history?: HistoryStore;
}

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
  private readonly saver: InstanceSaver;
  private readonly gate: SaveGate;
  private readonly waiters = new InstanceWaiters();
  private readonly ended = new EndedRecords();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly startWaiters = new StartWaiters();
  private readonly starting = new StartingInstances();
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
    this.saver = new InstanceSaver(options.history, this.logger);
    this.gate = new SaveGate(this.saver);
    this.unsubscribe = this.virtual?.onAdvance?.((now) => this.timers.fireDue(now));
  }

  /**
   * Resumes every instance the history store kept (call once, before anything starts):
   * finished ones answer status queries again, unfinished ones run on from their history.
   */
  async restore(): Promise<{ instances: number; resumed: number }> {
    const saved = await this.saver.load();
    let resumed = 0;
    for (const record of saved) {
      const { instance, work } = resumeInstance(record);
      if (this.instances.has(instance.instanceId)) continue;
      this.instances.set(instance.instanceId, instance);
      this.startWaiters.started(instance.instanceId);
      if (FINAL.has(instance.runtimeStatus)) {
        this.ended.pack(instance);
        continue;
      }
      resumed += 1;
      if (instance.inbox.length > 0) this.scheduleEpisode(instance);
      for (const item of work) this.startWork(instance, item);
    }
    return { instances: saved.length, resumed };
  }

  /**
   * Starts an instance unless one with this id exists, whatever its state (then `exists`).
   * With a history store, resolves once the instance is saved durably: accepted means kept.
   */
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
    const instance = newDriverInstance(instanceId, name, inputJson, this.now());
    const traceContext: Record<string, string> = {};
    propagation.inject(context.active(), traceContext);
    if (Object.keys(traceContext).length > 0) instance.traceContext = traceContext;
    this.instances.set(instanceId, instance);
    this.startWaiters.started(instanceId);
    this.starting.add(instanceId);
    try {
      await this.saver.saveStart(instance);
    } catch (error) {
      this.instances.delete(instanceId);
      this.starting.delete(instanceId);
      throw error;
    }
    this.scheduleEpisode(instance);
    return 'started';
  }

  /**
   * Resolves once fewer than `limit` instances started here have yet to get past their first
   * activity or timer (at once when they have; at close): the queue poller waits on it before
   * it takes in more requests.
   */
  whenFewerStarting(limit: number): Promise<void> {
    return this.closed ? Promise.resolve() : this.starting.whenFewer(limit);
  }

  /** The instance's state, or undefined for an unknown id. */
  async getStatus(instanceId: string): Promise<OrchestrationState | undefined> {
    const instance = this.instances.get(instanceId);
    if (instance === undefined) return undefined;
    return toOrchestrationState(instance.shown ?? instance);
  }

  /**
   * Resolves with the final state once the instance completed or failed. Rejects after
   * `timeoutMs` of wall time, or at once when the instance stalled (nothing left to run).
   */
  waitFor(instanceId: string, timeoutMs = 30_000): Promise<OrchestrationState> {
    const instance = this.require(instanceId);
    if (FINAL.has(instance.runtimeStatus) && instance.shown === undefined) {
      return Promise.resolve(toOrchestrationState(instance));
    }
    const finished = this.waiters.wait(instance, timeoutMs);
    this.scheduleSettle();
    return finished;
  }

  /**
   * Resolves once an instance with this id exists (at once when it does): a caller that
   * knows the id of an instance something else will start (a queued request) waits for it
   * without polling. Rejects when the driver closes first.
   */
  whenStarted(instanceId: string): Promise<void> {
    if (this.instances.has(instanceId)) return Promise.resolve();
    if (this.closed) return Promise.reject(this.closedBefore(instanceId, 'started'));
    return this.startWaiters.wait(instanceId);
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
    return runRecordOf(this.require(instanceId)).history;
  }

  /** Every instance with its state, history and scheduled actions: what the driver keeps, for inspection. */
  snapshot(): InstanceSnapshot[] {
    return [...this.instances.values()].map((instance) => ({
      ...toOrchestrationState(instance),
      ...runRecordOf(instance),
    }));
  }

  /**
   * Replays the instance on every prefix of its history (cut at each OrchestratorStarted)
   * and throws a ProvisioningError naming the first action that differs from the record.
   */
  async verifyReplay(instanceId: string): Promise<void> {
    const instance = this.require(instanceId);
    const { history, actions } = runRecordOf(instance);
    await verifyInstanceReplay(
      { ...instance, history, actions },
      this.replayer(instance.name),
      () => createInvocationContext(instance.name, this.logger, { instanceId, replay: 'verify' }),
    );
  }

  /** Cancels timers, waits for running activities and replays, and refuses new work. */
  async close(): Promise<void> {
    this.closed = true;
    // A closing driver takes in nothing: whoever waits to take in more stops waiting now,
    // not once the work under way has drained.
    this.starting.releaseAll();
    this.unsubscribe?.();
    this.timers.clear();
    await Promise.all([this.runner.drain(), ...this.episodesRunning, this.gate.settled()]);
    await this.saver.settled();
    this.waiters.failAll((instanceId) => this.closedBefore(instanceId, 'finished'));
    this.startWaiters.failAll((instanceId) => this.closedBefore(instanceId, 'started'));
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private closedBefore(instanceId: string, what: 'started' | 'finished'): ProvisioningError {
    return new ProvisioningError(
      'INTERNAL_ERROR',
      `the driver closed before "${instanceId}" ${what}`,
      { object: instanceId },
    );
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
    const ended = () => {
      instance.episodeScheduled = false;
      this.pendingEpisodes -= 1;
      this.episodesRunning.delete(run);
      if (instance.inbox.length > 0 && !FINAL.has(instance.runtimeStatus))
        this.scheduleEpisode(instance);
      this.scheduleSettle();
    };
    // Two reactions, not `catch` and `finally` (which add three promises of their own).
    const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.runEpisodes(instance))
      .then(ended, (error: unknown) => {
        this.logger.error(`orchestration driver: episode failed unexpectedly: ${String(error)}`, {
          instanceId: instance.instanceId,
        });
        ended();
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
      // What status queries show until the end is saved: only an ending episode that is saved
      // needs it.
      const shownBefore =
        result.kind === 'continue' || !this.saver.enabled ? undefined : stateFieldsOf(instance);
      if (result.kind === 'completed') this.finish(instance, result.at, undefined, result);
      else if (result.kind === 'failed') this.finish(instance, result.at, result.failure);
      else {
        for (const timerId of result.canceledTimers) {
          this.timers.cancel(instance.instanceId, timerId);
          if (!instance.canceledTimers.includes(timerId)) instance.canceledTimers.push(timerId);
        }
      }
      // Waiting for no activity of its own (a timer, an event, its end): not starting any more.
      if (result.kind !== 'continue' || !result.work.some((item) => item.kind === 'activity'))
        this.starting.delete(instance.instanceId);
      // Failures are logged by the saver; a restart resumes the instance from its last save.
      const saved = this.saver.save(instance).catch(() => undefined);
      if (result.kind === 'continue' && result.work.length > 0) {
        const { work } = result;
        this.gate.after(saved, () => {
          if (!this.closed) for (const item of work) this.startWork(instance, item);
          this.scheduleSettle();
        });
      }
      if (result.kind !== 'continue' && FINAL.has(instance.runtimeStatus)) {
        this.publishEnd(instance, shownBefore, saved);
        // The save above took its copy: nothing reads the live arrays any more.
        this.ended.pack(instance);
      }
    }
  }

  /**
   * Callers learn that an instance ended only once its end is saved durably: an end they
   * saw is never undone by a restart (which would run the instance's last steps again and
   * end it a second time). Until then, status queries show it as it was before
   * (`shownBefore`; undefined without a history store: nothing to wait for).
   */
  private publishEnd(
    instance: DriverInstance,
    shownBefore: StateFields | undefined,
    saved: Promise<void>,
  ): void {
    const publish = () => {
      delete instance.shown;
      this.waiters.finished(instance.instanceId);
    };
    if (shownBefore === undefined) {
      publish();
      return;
    }
    instance.shown = shownBefore;
    void saved.then(() => this.saver.durable()).then(publish, publish);
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
      ...(instance.traceContext === undefined ? {} : { traceContext: instance.traceContext }),
      done: (outcome) => this.onActivityDone(instance, item.eventId, outcome),
    });
  }

  private onActivityDone(
    instance: DriverInstance,
    eventId: number,
    outcome: ActivityOutcome,
  ): void {
    this.starting.delete(instance.instanceId);
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
    completed?: { output: unknown; outputJson: string | undefined },
  ): void {
    endInstance(instance, {
      at,
      updatedAt: this.now(),
      failure,
      output: completed?.output,
      ...(completed?.outputJson === undefined ? {} : { outputJson: completed.outputJson }),
    });
    if (failure !== undefined) {
      this.logger.warn(`orchestration ${instance.name} failed`, {
        instanceId: instance.instanceId,
      });
    }
    // Outstanding timers of a finished instance never reach it (the task hub discards them).
    this.timers.cancel(instance.instanceId);
    this.starting.delete(instance.instanceId);
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
    // Work held for a save will start: nothing is idle or stalled until it has.
    if (this.runner.busy || this.pendingEpisodes > 0 || this.gate.holding) return;
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
    for (const instanceId of this.waiters.waiting()) {
      const instance = this.instances.get(instanceId);
      if (instance === undefined || FINAL.has(instance.runtimeStatus)) continue;
      if (this.closed || this.timers.has(instanceId)) continue;
      this.logger.warn(`orchestration ${instance.name} stalled`, { instanceId });
      this.waiters.fail(
        instanceId,
        new ProvisioningError(
          'INTERNAL_ERROR',
          `orchestration "${instanceId}" (${instance.name}) stalled: it waits for nothing the driver will deliver`,
          { object: instanceId },
        ),
      );
    }
  }
}
