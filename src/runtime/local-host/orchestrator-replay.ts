import type { InvocationContext } from '@azure/functions';
import type { OrchestrationHandler } from 'durable-functions';
import { createOrchestrator } from 'durable-functions/lib/src/util/testingUtils';
import { parsedJson } from './driver-instance';
import type { HistoryEvent } from './history-events';
import { toReplayedAction, type ReplayedAction } from './replayed-action';

/** What one replay of an orchestrator over a history produced. */
export interface ReplayOutcome {
  status: 'running' | 'completed' | 'failed';
  /** The cumulative action list: the sequence id of an action follows from its position. */
  actions: ReplayedAction[];
  /** The return value, JSON round-tripped (completed only). */
  output?: unknown;
  /** The return value as the JSON text it was round-tripped through (completed only). */
  outputJson?: string;
  /** The error message the orchestrator failed with (failed only). */
  error?: string;
  /**
   * The custom status as last set, as the JSON text the task hub keeps; undefined when not
   * set (or falsy, as in the library). Text: most replays set a status nobody reads before
   * the next one, so it is parsed only when asked for.
   */
  customStatusJson?: string;
}

/**
 * The history as the executor last read it, kept between the episodes of one instance:
 * the executor turns each event's Timestamp into a Date in place and changes nothing else,
 * so the next episode hands it the same events plus the new ones instead of copying and
 * re-parsing the whole history every time. Still the whole history, replayed from the start.
 */
export interface ReplayView {
  events: Record<string, unknown>[];
  /**
   * Whether the instance's input holds no `Timestamp` key anywhere (worked out on the first
   * episode): the executor's walk would then change nothing in it.
   */
  inputWithoutTimestamps?: boolean;
}

export interface ReplayRequest {
  instanceId: string;
  history: readonly HistoryEvent[];
  /** The instance's view from its previous episodes (extended here); none: a fresh copy. */
  view?: ReplayView;
  input: unknown;
  /** A fresh context for every replay: the library stores its `df` on it. */
  context: InvocationContext;
}

/** Replays an orchestrator over a history through durable-functions' own executor. */
export type Replayer = (request: ReplayRequest) => Promise<ReplayOutcome>;

/** The label OrchestrationFailureError puts between its message and the executor state. */
const OUT_OF_PROC_LABEL = '$OutOfProcData$:';

/**
 * Wraps an orchestrator generator in the library's real TaskOrchestrationExecutor
 * (platform-notes.md, "Running orchestrations without the host"): schema V1
 * (`upperSchemaVersion: 0`), so the actions come back as one flat cumulative list.
 *
 * @example
 * const replay = createReplayer(myOrchestrator);
 * const outcome = await replay({ instanceId, history, input, context: new InvocationContext() });
 */
export function createReplayer(handler: OrchestrationHandler): Replayer {
  const orchestrator = createOrchestrator(handler);
  return async ({ instanceId, history, view, input, context }) => {
    const trigger = {
      instanceId,
      isReplaying: false,
      parentInstanceId: '',
      upperSchemaVersion: 0,
    };
    // The library walks every enumerable value of the trigger on every episode to turn
    // Timestamp strings into Dates (Utils.parseTimestampsAsDates): the whole history again
    // each time, an array or two per event. The events come with their Dates already
    // (`executorEvents`), so the history is handed over where that walk does not look; the
    // binding still finds it (it checks own properties, enumerable or not). So is the input,
    // when the walk would find no Timestamp in it (the instance's input is one object,
    // parsed once, for all its episodes).
    Object.defineProperty(trigger, 'history', {
      value: executorEvents(history, view),
      enumerable: false,
    });
    if (view !== undefined) view.inputWithoutTimestamps ??= !holdsTimestampKey(input);
    Object.defineProperty(trigger, 'input', {
      value: input,
      enumerable: view?.inputWithoutTimestamps !== true,
      writable: true,
      configurable: true,
    });
    let state: unknown;
    try {
      state = await orchestrator(trigger, context);
    } catch (error) {
      return failedOutcome(error);
    }
    try {
      const record = asRecord(state);
      const actions = flatActions(record.actions);
      const customStatusJson = jsonText(record.customStatus);
      if (record.isDone === true) {
        // As the task hub stores it: JSON text, so non-JSON values change or vanish here as in Azure.
        const outputJson = jsonText(record.output);
        return {
          status: 'completed',
          actions,
          output: parsedJson(outputJson),
          ...(outputJson === undefined ? {} : { outputJson }),
          customStatusJson,
        };
      }
      return { status: 'running', actions, customStatusJson };
    } catch (error) {
      // Output, custom status or an action the host could not take (not JSON-safe, unsupported).
      return { status: 'failed', actions: [], error: errorMessage(error) };
    }
  };
}

/**
 * The executor throws OrchestrationFailureError whose message is
 * `<something>\n\n$OutOfProcData$:<state JSON>`; in 3.5.0 `<something>` is the boolean
 * "orchestrator returned", so the real message is read from the state's `error`.
 */
function failedOutcome(error: unknown): ReplayOutcome {
  const message = errorMessage(error);
  const at = message.indexOf(OUT_OF_PROC_LABEL);
  if (at < 0) return { status: 'failed', actions: [], error: message };
  let state: Record<string, unknown>;
  try {
    state = asRecord(JSON.parse(message.slice(at + OUT_OF_PROC_LABEL.length)));
  } catch {
    return { status: 'failed', actions: [], error: message.slice(0, at).trim() };
  }
  return {
    status: 'failed',
    actions: [],
    error:
      typeof state.error === 'string' ? state.error : 'the orchestrator threw a non-Error value',
    customStatusJson: jsonText(state.customStatus),
  };
}

/**
 * The events as the executor reads them: copies with their Timestamp as a Date, as the
 * library would turn it in place. Events are flat (results and inputs are JSON strings), so
 * copying each event is enough. With a view, only the events it lacks are copied, and
 * every event's IsPlayed is taken from the history again (the driver marks them played).
 *
 * @example
 * const view = { events: [] };
 * executorEvents(history, view); // the view now holds a copy of each event
 */
export function executorEvents(
  history: readonly HistoryEvent[],
  view: ReplayView | undefined,
): Record<string, unknown>[] {
  if (view === undefined) return history.map(executorEvent);
  const { events } = view;
  for (let index = 0; index < history.length; index += 1) {
    const event = history[index] as HistoryEvent;
    const seen = events[index];
    if (seen === undefined) events.push(executorEvent(event));
    else seen.IsPlayed = event.IsPlayed;
  }
  return events;
}

/** Whether a JSON value has a `Timestamp` key at any depth: what the executor's walk looks for. */
function holdsTimestampKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Object.prototype.hasOwnProperty.call(value, 'Timestamp')) return true;
  return Object.values(value).some(holdsTimestampKey);
}

function executorEvent(event: HistoryEvent): Record<string, unknown> {
  return { ...event, Timestamp: new Date(event.Timestamp) };
}

function flatActions(actions: unknown): ReplayedAction[] {
  if (!Array.isArray(actions)) return [];
  return actions.flatMap((group: unknown) =>
    Array.isArray(group) ? group.map((action: unknown) => toReplayedAction(action)) : [],
  );
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** The value as JSON text; undefined for undefined (and what JSON cannot hold at all). */
function jsonText(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
