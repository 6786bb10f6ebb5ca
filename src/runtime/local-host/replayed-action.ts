import { ProvisioningError } from '../../domain/errors';
import { toRetryPolicy, type RetryPolicy } from './retry-policy';

/**
 * durable-functions' action type numbers (lib/src/actions/ActionType.js). The driver runs
 * activities, activities with retry and timers; the rest is not used by the service.
 */
export const ACTION_TYPE = {
  CallActivity: 0,
  CallActivityWithRetry: 1,
  CallSubOrchestrator: 2,
  CallSubOrchestratorWithRetry: 3,
  ContinueAsNew: 4,
  CreateTimer: 5,
  WaitForExternalEvent: 6,
  CallEntity: 7,
  CallHttp: 8,
  SignalEntity: 9,
  WhenAny: 11,
  WhenAll: 12,
  LockEntities: 13,
  ReleaseEntities: 14,
} as const;

/** One action of a replay, normalized: inputs as the JSON text the task hub would store. */
export type ReplayedAction =
  | { kind: 'activity'; name: string; input: string | undefined }
  | { kind: 'activityWithRetry'; name: string; input: string | undefined; retry: RetryPolicy }
  | { kind: 'timer'; fireAt: number; canceled: boolean };

/**
 * Normalizes one action of the executor's schema-V1 action list (WhenAll/WhenAny are
 * already flattened by the library).
 */
export function toReplayedAction(raw: unknown): ReplayedAction {
  const action = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  switch (action.actionType) {
    case ACTION_TYPE.CallActivity:
      return new ReplayedActivity(String(action.functionName), action.input);
    case ACTION_TYPE.CallActivityWithRetry:
      return new ReplayedRetriedActivity(
        String(action.functionName),
        action.input,
        toRetryPolicy(action.retryOptions),
      );
    case ACTION_TYPE.CreateTimer: {
      const fireAt = action.fireAt instanceof Date ? action.fireAt.getTime() : Number.NaN;
      return { kind: 'timer', fireAt, canceled: action.isCanceled === true };
    }
    default:
      throw new ProvisioningError(
        'OPERATION_NOT_SUPPORTED',
        `the local orchestration driver does not run action type ${String(action.actionType)}`,
      );
  }
}

/**
 * The action as plain data, its input serialized: what the driver records. The replay's
 * action holds the executor's input object (often the orchestration's whole state) until
 * its input is read; a recorded action keeps only the text, which its TaskScheduled event
 * shares.
 */
export function settledAction(action: ReplayedAction): ReplayedAction {
  switch (action.kind) {
    case 'activity':
      return { kind: 'activity', name: action.name, input: action.input };
    case 'activityWithRetry':
      return {
        kind: 'activityWithRetry',
        name: action.name,
        input: action.input,
        retry: action.retry,
      };
    case 'timer':
      return action;
  }
}

/**
 * An activity call of a replay, its input serialized on first read only: every replay lists
 * all actions so far, and only new ones (and the determinism check) need their input as
 * text. A class, so that the getter is shared rather than defined on every action.
 */
class ReplayedActivity {
  readonly kind = 'activity';
  private raw: unknown;
  private text: string | undefined;
  private serialized = false;

  constructor(
    readonly name: string,
    raw: unknown,
  ) {
    this.raw = raw;
  }

  get input(): string | undefined {
    if (!this.serialized) {
      this.text = inputJson(this.raw);
      this.serialized = true;
      this.raw = undefined;
    }
    return this.text;
  }
}

/** An activity call with retry of a replay: its input serialized on first read only. */
class ReplayedRetriedActivity {
  readonly kind = 'activityWithRetry';
  private readonly call: ReplayedActivity;

  constructor(
    readonly name: string,
    raw: unknown,
    readonly retry: RetryPolicy,
  ) {
    this.call = new ReplayedActivity(name, raw);
  }

  get input(): string | undefined {
    return this.call.input;
  }
}

/**
 * The action's input as JSON text. durable-functions JSON-encodes string inputs itself
 * (Utils.processInput) and the host serializes the rest with the action list.
 */
function inputJson(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  return JSON.stringify(input);
}

/** A short description for error messages: type, name and fire time, never the input (it may be large). */
export function describeAction(action: ReplayedAction): string {
  switch (action.kind) {
    case 'activity':
      return `CallActivity "${action.name}"`;
    case 'activityWithRetry':
      return `CallActivityWithRetry "${action.name}"`;
    case 'timer':
      return `CreateTimer at ${Number.isNaN(action.fireAt) ? 'an invalid time' : new Date(action.fireAt).toISOString()}`;
  }
}

/**
 * The first difference between a recorded action and its replay, or undefined when they
 * match. `strict` compares inputs, retry options and fire times too (the replay check);
 * without it only the type and name count, as the task hub checks during replay.
 */
export function actionDifference(
  recorded: ReplayedAction,
  replayed: ReplayedAction,
  strict: boolean,
): string | undefined {
  if (recorded.kind !== replayed.kind || nameOf(recorded) !== nameOf(replayed)) {
    return `recorded ${describeAction(recorded)}, replay produced ${describeAction(replayed)}`;
  }
  if (!strict) return undefined;
  if (recorded.kind === 'timer' && replayed.kind === 'timer') {
    return recorded.fireAt === replayed.fireAt
      ? undefined
      : `recorded ${describeAction(recorded)}, replay produced ${describeAction(replayed)}`;
  }
  if (recorded.kind !== 'timer' && replayed.kind !== 'timer' && recorded.input !== replayed.input) {
    return `${describeAction(recorded)}: the replay passed a different input`;
  }
  if (
    recorded.kind === 'activityWithRetry' &&
    replayed.kind === 'activityWithRetry' &&
    JSON.stringify(recorded.retry) !== JSON.stringify(replayed.retry)
  ) {
    return `${describeAction(recorded)}: the replay passed different retry options`;
  }
  return undefined;
}

function nameOf(action: ReplayedAction): string | undefined {
  return action.kind === 'timer' ? undefined : action.name;
}
