import type { InvocationContext } from '@azure/functions';
import type { DriverInstance, InstanceFailure } from './driver-instance';
import { HISTORY_EVENT, historyEvent, type HistoryEvent } from './history-events';
import type { Replayer } from './orchestrator-replay';
import { actionDifference, settledAction } from './replayed-action';
import { retryDelayMs } from './retry-policy';

/** Work an episode scheduled: an activity call or a durable timer, by sequence id. */
export type EpisodeWork =
  | { kind: 'activity'; eventId: number; name: string; input: string | undefined }
  | { kind: 'timer'; eventId: number; fireAt: number };

/** How an episode ended: new work to start (and timers the orchestrator canceled), or the end. */
export type EpisodeResult =
  | { kind: 'continue'; work: EpisodeWork[]; canceledTimers: number[] }
  | { kind: 'completed'; at: number; output: unknown; outputJson: string | undefined }
  | { kind: 'failed'; at: number; failure: InstanceFailure };

export interface EpisodeDependencies {
  replay: Replayer;
  now(): number;
  hasActivity(name: string): boolean;
  newContext(): InvocationContext;
}

/**
 * One orchestrator episode, as the task hub runs it: OrchestratorStarted and the new
 * events appended, the whole history replayed, the new actions given sequence ids and
 * recorded. Ids follow the executor (TaskOrchestrationExecutor.trackOpenTask): new
 * actions in list order, and a retried activity takes the next id for its timer when its
 * failure is processed and the next one for its retry when that timer fires.
 */
export async function runEpisode(
  instance: DriverInstance,
  deps: EpisodeDependencies,
): Promise<EpisodeResult> {
  const batch = takeBatch(instance);
  const episode = instance.episodes;
  instance.episodes += 1;
  instance.runtimeStatus = 'Running';
  const firedAt = batch.map((event) =>
    event.EventType === HISTORY_EVENT.TimerFired ? Date.parse(event.FireAt) : 0,
  );
  // An episode never starts before the timer that woke it, nor before the previous one.
  const at = Math.max(deps.now(), instance.lastEpisodeAt, ...firedAt);
  instance.lastEpisodeAt = at;
  instance.history.push(historyEvent.orchestratorStarted(at), ...batch);
  const work = advanceRetries(instance, batch, at);

  instance.replayView ??= { events: [] };
  const outcome = await deps.replay({
    instanceId: instance.instanceId,
    history: instance.history,
    view: instance.replayView,
    input: instance.input,
    context: deps.newContext(),
  });
  for (const event of instance.history) event.IsPlayed = true;
  if (outcome.customStatusJson !== undefined) instance.customStatusJson = outcome.customStatusJson;
  if (outcome.status === 'failed') {
    return {
      kind: 'failed',
      at,
      failure: { source: 'orchestrator', message: outcome.error ?? 'unknown error' },
    };
  }

  // The task hub rejects a replay whose actions differ in type or name from its history.
  const canceledTimers: number[] = [];
  for (const [index, recorded] of instance.actions.entries()) {
    const replayed = outcome.actions[index];
    const difference =
      replayed === undefined
        ? `action #${index} of the history was not produced by the replay`
        : actionDifference(recorded.action, replayed, false);
    if (difference !== undefined) {
      const message = `Non-Deterministic workflow detected: ${difference}`;
      return { kind: 'failed', at, failure: { source: 'host', message } };
    }
    if (recorded.action.kind === 'timer' && replayed?.kind === 'timer' && replayed.canceled) {
      canceledTimers.push(recorded.eventId);
    }
  }

  for (const replayed of outcome.actions.slice(instance.actions.length)) {
    const action = settledAction(replayed);
    const eventId = instance.nextEventId++;
    instance.actions.push({ action, episode, eventId });
    if (action.kind === 'timer') {
      if (!action.canceled) work.push({ kind: 'timer', eventId, fireAt: action.fireAt });
      continue;
    }
    if (!deps.hasActivity(action.name)) {
      const message = `The function '${action.name}' doesn't exist, is disabled, or is not an activity or orchestrator function.`;
      return { kind: 'failed', at, failure: { source: 'host', message } };
    }
    if (action.kind === 'activityWithRetry') {
      instance.retries.set(eventId, {
        name: action.name,
        input: action.input,
        policy: action.retry,
        failedAttempts: 0,
        phase: 'attempt',
      });
    }
    work.push({ kind: 'activity', eventId, name: action.name, input: action.input });
  }

  if (outcome.status === 'completed') {
    return { kind: 'completed', at, output: outcome.output, outputJson: outcome.outputJson };
  }
  for (const item of work) {
    instance.history.push(
      item.kind === 'activity'
        ? historyEvent.taskScheduled(at, item.eventId, item.name, item.input)
        : historyEvent.timerCreated(at, item.eventId, item.fireAt),
    );
  }
  instance.history.push(historyEvent.orchestratorCompleted(at));
  instance.updatedAt = deps.now();
  return { kind: 'continue', work, canceledTimers };
}

/**
 * Retry bookkeeping for the batch's events, as DurableTask's RetryInterceptor does it: a
 * durable timer after every failed attempt (the last one included), then the next
 * attempt while attempts remain; after the last timer the executor fails the task.
 */
function advanceRetries(
  instance: DriverInstance,
  batch: HistoryEvent[],
  at: number,
): EpisodeWork[] {
  const work: EpisodeWork[] = [];
  for (const event of batch) {
    if (event.EventType === HISTORY_EVENT.TaskCompleted) {
      instance.retries.delete(event.TaskScheduledId);
    } else if (event.EventType === HISTORY_EVENT.TaskFailed) {
      const retry = instance.retries.get(event.TaskScheduledId);
      if (retry?.phase !== 'attempt') continue;
      instance.retries.delete(event.TaskScheduledId);
      retry.failedAttempts += 1;
      retry.phase = 'timer';
      const eventId = instance.nextEventId++;
      instance.retries.set(eventId, retry);
      const fireAt = at + retryDelayMs(retry.policy, retry.failedAttempts);
      work.push({ kind: 'timer', eventId, fireAt });
    } else if (event.EventType === HISTORY_EVENT.TimerFired) {
      const retry = instance.retries.get(event.TimerId);
      if (retry?.phase !== 'timer') continue;
      instance.retries.delete(event.TimerId);
      if (retry.failedAttempts >= retry.policy.maxNumberOfAttempts) continue;
      retry.phase = 'attempt';
      const eventId = instance.nextEventId++;
      instance.retries.set(eventId, retry);
      work.push({ kind: 'activity', eventId, name: retry.name, input: retry.input });
    }
  }
  return work;
}

/**
 * The events of the next episode. A retry event (a retried attempt's failure, a retry
 * timer) only ever opens a batch: the executor gives it its next sequence id while it
 * processes the event, so an event before it could let the orchestrator schedule first
 * and the ids would no longer match.
 */
function takeBatch(instance: DriverInstance): HistoryEvent[] {
  const batch: HistoryEvent[] = [];
  for (let next = instance.inbox[0]; next !== undefined; next = instance.inbox[0]) {
    if (batch.length > 0 && isRetryEvent(instance, next)) break;
    batch.push(next);
    instance.inbox.shift();
  }
  return batch;
}

function isRetryEvent(instance: DriverInstance, event: HistoryEvent): boolean {
  if (event.EventType === HISTORY_EVENT.TaskFailed) {
    return instance.retries.get(event.TaskScheduledId)?.phase === 'attempt';
  }
  if (event.EventType === HISTORY_EVENT.TimerFired) {
    return instance.retries.get(event.TimerId)?.phase === 'timer';
  }
  return false;
}
