import type { ErrorCode, SerializedError } from './errors';
import type { EffectiveChange } from './journal-entry';
import type { ActionType, ProvisioningAction } from './provisioning-request';
import type { RequestContext } from './request-context';
import type { StepOutcome } from './step-outcome';

/** The state of one step (DESIGN: GET /requests/{id}). */
export type StepState = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';
export type RequestStatus = 'pending' | 'running' | 'succeeded' | 'failed';

/** An effective change of a step, as its report lists it. */
export type StepChange = EffectiveChange;

export interface StepReport {
  index: number;
  action: ActionType;
  /** The groups the step names, as the request named them. */
  groups?: string[];
  state: StepState;
  /** Effective changes only: what the journal records for this step. */
  changes: StepChange[];
  notices: string[];
  /** On failure; MEMBERSHIP_MISMATCH carries `details.missing` and `details.unexpected`. */
  error?: SerializedError;
  /** When the step began and ended (orchestration time). */
  startedAt?: string;
  finishedAt?: string;
}

/**
 * What a provisioning orchestration publishes as custom status and returns as output, with
 * the caller's context (who asked, why, which case).
 */
export interface RequestReport extends RequestContext {
  requestId: string;
  connector: string;
  accountId: string;
  status: RequestStatus;
  steps: StepReport[];
  /** Present while the request is held because its connector is quarantined (issue 14). */
  hold?: RequestHold;
  /** About the request as a whole: the connector's credential expiring soon, or expired. */
  notices?: string[];
  startedAt?: string;
  finishedAt?: string;
}

/**
 * Why and since when a request waits: its connector is quarantined (`quarantine`), or its
 * target throttles past what a call waits in place (`throttling`, DESIGN invariant 8).
 */
export interface RequestHold {
  cause: 'quarantine' | 'throttling';
  /** When this request began to wait (ISO). */
  since: string;
  /** When the connector was quarantined (a quarantine only). */
  quarantinedSince?: string;
  /** The failure that quarantined the connector; the throttling waited for. */
  reason: { code: ErrorCode; message: string };
  /**
   * When the request looks again whether the connector was released; when it runs the
   * throttled step again.
   */
  nextCheckAt: string;
}

/** Every step pending: the report of a request that has not started yet. */
export function initialSteps(actions: readonly ProvisioningAction[]): StepReport[] {
  return actions.map((action, index) => ({
    index,
    action: action.type,
    ...('groups' in action
      ? { groups: action.groups.map((g) => ('id' in g ? `id:${g.id}` : g.name)) }
      : {}),
    state: 'pending',
    changes: [],
    notices: [],
  }));
}

/**
 * The report of a step that ended (at `finishedAt`, when it ran in time): succeeded with its
 * changes and notices, or failed with its error and whatever it changed before (a step that
 * could not start has no changes).
 */
export function stepEnded(
  step: StepReport,
  outcome: Pick<StepOutcome, 'ok' | 'error'> & Partial<Pick<StepOutcome, 'changes' | 'notices'>>,
  finishedAt?: string,
): StepReport {
  return {
    ...step,
    state: outcome.ok ? 'succeeded' : 'failed',
    ...(finishedAt === undefined ? {} : { finishedAt }),
    changes: outcome.changes ?? [],
    notices: outcome.notices ?? [],
    ...(outcome.ok || outcome.error === undefined ? {} : { error: outcome.error }),
  };
}

/** A failed step fails the request and skips the rest (issue 4: provisioning request). */
export function skipRemaining(steps: StepReport[], failedIndex: number): StepReport[] {
  return steps.map((step) =>
    step.index > failedIndex && step.state === 'pending' ? { ...step, state: 'skipped' } : step,
  );
}

/** The request's status from its steps. */
export function requestStatus(steps: readonly StepReport[]): RequestStatus {
  if (steps.some((step) => step.state === 'failed')) return 'failed';
  if (steps.every((step) => step.state === 'succeeded' || step.state === 'skipped'))
    return 'succeeded';
  if (steps.every((step) => step.state === 'pending')) return 'pending';
  return 'running';
}
