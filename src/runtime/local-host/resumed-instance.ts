import { FINAL_STATUSES, parsedJson, type DriverInstance } from './driver-instance';
import { HISTORY_EVENT, historyEvent } from './history-events';
import type { SavedInstance } from './history-store';
import type { EpisodeWork } from './orchestration-episode';

/** An instance rebuilt from its saves, and what it waits for. */
export interface ResumedInstance {
  instance: DriverInstance;
  /**
   * The activities it scheduled whose completion is not in its history (they run again:
   * Durable runs activities at least once) and the timers that have not fired.
   */
  work: EpisodeWork[];
}

/**
 * Rebuilds a driver instance from its saved history and state. What was between the last
 * save and the end of the process is gone: completions that had not reached an episode
 * yet, timers that fired since. Its activities run again and its timers fire again (at
 * once when their time has passed); an instance saved before its first episode starts.
 */
export function resumeInstance(saved: SavedInstance): ResumedInstance {
  const { state } = saved;
  const instance: DriverInstance = {
    instanceId: saved.instanceId,
    name: saved.name,
    input: parsedJson(saved.inputJson),
    inputJson: saved.inputJson,
    runtimeStatus: state.runtimeStatus,
    output: state.output,
    customStatusJson:
      state.customStatus === undefined ? undefined : JSON.stringify(state.customStatus),
    ...(state.failure === undefined ? {} : { failure: state.failure }),
    createdAt: saved.createdAt,
    updatedAt: state.updatedAt,
    history: saved.history,
    inbox: [],
    actions: saved.actions,
    retries: new Map(state.retries),
    nextEventId: state.nextEventId,
    episodes: state.episodes,
    lastEpisodeAt: state.lastEpisodeAt,
    episodeScheduled: false,
    canceledTimers: saved.canceledTimers,
  };
  if (FINAL_STATUSES.has(instance.runtimeStatus)) return { instance, work: [] };
  if (instance.history.length === 0) {
    instance.inbox.push(
      historyEvent.executionStarted(instance.createdAt, instance.name, instance.inputJson),
    );
    return { instance, work: [] };
  }
  const done = new Set<number>();
  const fired = new Set<number>(saved.canceledTimers);
  for (const event of instance.history) {
    if (event.EventType === HISTORY_EVENT.TaskCompleted) done.add(event.TaskScheduledId);
    if (event.EventType === HISTORY_EVENT.TaskFailed) done.add(event.TaskScheduledId);
    if (event.EventType === HISTORY_EVENT.TimerFired) fired.add(event.TimerId);
  }
  const work: EpisodeWork[] = [];
  for (const event of instance.history) {
    if (event.EventType === HISTORY_EVENT.TaskScheduled && !done.has(event.EventId)) {
      work.push({ kind: 'activity', eventId: event.EventId, name: event.Name, input: event.Input });
    }
    if (event.EventType === HISTORY_EVENT.TimerCreated && !fired.has(event.EventId)) {
      work.push({ kind: 'timer', eventId: event.EventId, fireAt: Date.parse(event.FireAt) });
    }
  }
  return { instance, work };
}
