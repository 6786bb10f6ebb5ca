/**
 * Durable task history events, in the shape the durable-functions executor reads them
 * (durable-functions 3.5.0, lib/src/history/HistoryEventType.js). The executor only acts
 * on ExecutionStarted (starts the generator), OrchestratorStarted (sets
 * `currentUtcDateTime`), TaskCompleted / TaskFailed (by `TaskScheduledId`) and TimerFired
 * (by `TimerId`); the other events are kept because the real task hub records them and
 * because tests inspect them.
 */
export const HISTORY_EVENT = {
  ExecutionStarted: 0,
  ExecutionCompleted: 1,
  TaskScheduled: 4,
  TaskCompleted: 5,
  TaskFailed: 6,
  TimerCreated: 10,
  TimerFired: 11,
  OrchestratorStarted: 12,
  OrchestratorCompleted: 13,
} as const;

interface EventBase {
  /** Sequence id of scheduled work (TaskScheduled, TimerCreated); -1 for the others, as in the task hub. */
  EventId: number;
  Timestamp: string;
  IsPlayed: boolean;
}

export interface ExecutionStartedEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.ExecutionStarted;
  Name: string;
  /** The orchestration input as JSON text (absent when the input was undefined). */
  Input?: string;
}

export interface ExecutionCompletedEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.ExecutionCompleted;
  OrchestrationStatus: 'Completed' | 'Failed';
  /** JSON text of the output, or the failure message. */
  Result?: string;
}

export interface TaskScheduledEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.TaskScheduled;
  Name: string;
  Input?: string;
}

export interface TaskCompletedEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.TaskCompleted;
  TaskScheduledId: number;
  /** JSON text: the executor `JSON.parse`s it. */
  Result: string;
}

export interface TaskFailedEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.TaskFailed;
  TaskScheduledId: number;
  /** The executor builds `new Error(`${Reason} \n ${Details}`)`: both must be strings. */
  Reason: string;
  Details: string;
}

export interface TimerCreatedEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.TimerCreated;
  FireAt: string;
}

export interface TimerFiredEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.TimerFired;
  TimerId: number;
  FireAt: string;
}

export interface OrchestratorStartedEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.OrchestratorStarted;
}

export interface OrchestratorCompletedEvent extends EventBase {
  EventType: typeof HISTORY_EVENT.OrchestratorCompleted;
}

/** One recorded event of an orchestration's history. */
export type HistoryEvent =
  | ExecutionStartedEvent
  | ExecutionCompletedEvent
  | TaskScheduledEvent
  | TaskCompletedEvent
  | TaskFailedEvent
  | TimerCreatedEvent
  | TimerFiredEvent
  | OrchestratorStartedEvent
  | OrchestratorCompletedEvent;

/** Builds history events with the task hub's defaults (EventId -1, not yet played). */
export const historyEvent = {
  executionStarted: (at: number, name: string, input: string | undefined): HistoryEvent => ({
    EventType: HISTORY_EVENT.ExecutionStarted,
    ...base(at),
    Name: name,
    ...(input === undefined ? {} : { Input: input }),
  }),
  executionCompleted: (
    at: number,
    status: 'Completed' | 'Failed',
    result: string | undefined,
  ): HistoryEvent => ({
    EventType: HISTORY_EVENT.ExecutionCompleted,
    ...base(at),
    OrchestrationStatus: status,
    ...(result === undefined ? {} : { Result: result }),
  }),
  taskScheduled: (
    at: number,
    id: number,
    name: string,
    input: string | undefined,
  ): HistoryEvent => ({
    EventType: HISTORY_EVENT.TaskScheduled,
    ...base(at, id),
    Name: name,
    ...(input === undefined ? {} : { Input: input }),
  }),
  taskCompleted: (at: number, scheduledId: number, result: string): HistoryEvent => ({
    EventType: HISTORY_EVENT.TaskCompleted,
    ...base(at),
    TaskScheduledId: scheduledId,
    Result: result,
  }),
  taskFailed: (at: number, scheduledId: number, reason: string, details: string): HistoryEvent => ({
    EventType: HISTORY_EVENT.TaskFailed,
    ...base(at),
    TaskScheduledId: scheduledId,
    Reason: reason,
    Details: details,
  }),
  timerCreated: (at: number, id: number, fireAt: number): HistoryEvent => ({
    EventType: HISTORY_EVENT.TimerCreated,
    ...base(at, id),
    FireAt: new Date(fireAt).toISOString(),
  }),
  timerFired: (at: number, timerId: number, fireAt: number): HistoryEvent => ({
    EventType: HISTORY_EVENT.TimerFired,
    ...base(at),
    TimerId: timerId,
    FireAt: new Date(fireAt).toISOString(),
  }),
  orchestratorStarted: (at: number): HistoryEvent => ({
    EventType: HISTORY_EVENT.OrchestratorStarted,
    ...base(at),
  }),
  orchestratorCompleted: (at: number): HistoryEvent => ({
    EventType: HISTORY_EVENT.OrchestratorCompleted,
    ...base(at),
  }),
};

function base(at: number, eventId = -1): EventBase {
  return { EventId: eventId, Timestamp: isoTime(at), IsPlayed: false };
}

/** The last time formatted: the events of an episode mostly share one. */
let lastIso = { at: Number.NaN, text: '' };

function isoTime(at: number): string {
  if (at !== lastIso.at) lastIso = { at, text: new Date(at).toISOString() };
  return lastIso.text;
}
