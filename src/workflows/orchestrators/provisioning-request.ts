import type { OrchestrationContext } from 'durable-functions';
import {
  applyRecordUpdate,
  isEmptyRecordUpdate,
  isLinked,
  type AccountRecord,
} from '../../domain/account-record';
import type { SerializedError } from '../../domain/errors';
import { journalEntriesOf, type EffectiveChange } from '../../domain/journal-entry';
import type { ProvisioningRequest } from '../../domain/provisioning-request';
import {
  initialSteps,
  requestStatus,
  skipRemaining,
  stepEnded,
  type RequestReport,
  type StepReport,
} from '../../domain/request-report';
import { requestContextOf } from '../../domain/request-context';
import { lastPasswordUse, requestStep } from '../../domain/request-step';
import { newAccountHandle } from '../../domain/step-context';
import type { StepOutcome } from '../../domain/step-outcome';
import type { LeaseResult } from '../../store/account-leases';
import { indexEntryOf } from '../../store/request-index';
import { ACTIVITIES } from '../names';
import { callActivity, waitFor, type Step } from './activity-calls';
import { driveMachine } from './drive-machine';
import {
  holdAfterFailure,
  waitWhileQuarantined,
  withHolds,
  type HoldSubject,
} from './quarantine-hold';

/**
 * A lease outlives any one step (the re-read loop is at most 30 s); it is renewed before a
 * step once half of it has passed.
 */
const LEASE_TTL_MS = 5 * 60_000;
/** How long a request waits for another request on the same account before it fails. */
const LEASE_WAIT_MS = 10 * 60_000;

/**
 * The wait before the next poll of a taken lease: every second at first (most requests hold
 * an account for seconds), then longer, up to 15 s: a ten-minute wait stays a short history,
 * which every replay of the orchestration reads again.
 */
export function leasePollDelay(poll: number): number {
  return poll < 10 ? 1_000 : Math.min(15_000, Math.round(1_000 * 1.5 ** (poll - 9)));
}

/**
 * The provisioning request orchestration: the actions in order, each a step machine of
 * src/domain (account actions, the membership write procedure) driven on activities and
 * durable timers, with its state published in custom status; a failed step fails the
 * request and skips the rest. The account's lease keeps another request's writes from
 * interleaving with this one's (DESIGN invariant 7). Each step's effective changes and what
 * the service's record of the account learns are written together once the step ends.
 */
export function* provisioningRequestOrchestrator(
  context: OrchestrationContext,
): Step<RequestReport> {
  const request = context.df.getInput<ProvisioningRequest>();
  const now = () => context.df.currentUtcDateTime.toISOString();
  const report: RequestReport = {
    requestId: request.requestId,
    connector: request.connector,
    accountId: request.account.accountId,
    ...requestContextOf(request),
    status: 'running',
    steps: initialSteps(request.actions),
    startedAt: now(),
  };
  // Steps are replaced, never changed in place: a shallow copy is a snapshot.
  const publish = () => context.df.setCustomStatus(customStatusOf(report));
  function* finish(): Step<RequestReport> {
    report.status = requestStatus(report.steps);
    report.finishedAt = now();
    publish();
    // The request list learns the end; a failure to write it only leaves the list to ask
    // the orchestration itself, as it does while a request runs.
    yield* callActivity<null>(context, ACTIVITIES.indexRequestEnd, {
      ...indexEntryOf(request),
      status: report.status,
      finishedAt: report.finishedAt,
    });
    return report;
  }
  const failAt = (index: number, outcome: StepOutcome | { error: SerializedError }) => {
    report.steps[index] = stepEnded(
      report.steps[index] as StepReport,
      { ...outcome, ok: false },
      now(),
    );
    report.steps = skipRemaining(report.steps, index);
  };
  publish();

  const { connector } = request;
  const { accountId } = request.account;
  // While its connector is quarantined, the request waits (issue 14): before it starts,
  // for the lease, and after a step that met a failure failing every request.
  const hold: HoldSubject = {
    connector,
    requestId: request.requestId,
    heldMs: 0,
    notices: [],
    show: (held) => {
      if (held === undefined) delete report.hold;
      else report.hold = held;
      publish();
    },
  };
  const admitted = yield* waitWhileQuarantined(context, hold);
  if ('error' in admitted) {
    failAt(0, { error: admitted.error });
    yield* discardPassword(context, request);
    return yield* finish();
  }
  const lease = { connector, accountId, owner: context.df.instanceId };
  const taken = yield* takeLease(context, lease, hold);
  let leaseTakenAt = context.df.currentUtcDateTime.getTime();
  let leaseEtag = 'etag' in taken ? taken.etag : undefined;
  if ('error' in taken) {
    failAt(0, { error: taken.error });
    yield* discardPassword(context, request);
    return yield* finish();
  }

  // Held from here on, the request keeps the account's lease (DESIGN invariant 7).
  hold.lease = { accountId, owner: lease.owner, ttlMs: LEASE_TTL_MS };

  let handle = newAccountHandle();
  /** The account record as stored, once a step of this request wrote it (undefined: not known). */
  let stored: AccountRecord | null | undefined;
  const lastUse = lastPasswordUse(request.actions);
  let passwordDiscarded = request.passwordSecret === undefined;

  /** Changes a step made before it was held and ran again. */
  let earlier: EffectiveChange[] = [];
  for (let index = 0; index < request.actions.length; index++) {
    report.steps[index] = {
      ...(report.steps[index] as StepReport),
      state: 'running',
      startedAt: now(),
    };
    publish();
    if (context.df.currentUtcDateTime.getTime() - leaseTakenAt > LEASE_TTL_MS / 2) {
      leaseTakenAt = context.df.currentUtcDateTime.getTime();
      const renewed = yield* takeLease(context, lease, hold);
      if ('error' in renewed) {
        failAt(index, { error: renewed.error });
        break;
      }
      leaseEtag = renewed.etag;
    }
    let outcome = yield* driveMachine(context, requestStep(request, index, handle));
    if (outcome.ok && index === lastUse) passwordDiscarded = true;
    if (outcome.record !== undefined) {
      handle.record =
        applyRecordUpdate(handle.record ?? undefined, connector, accountId, outcome.record) ?? null;
    }

    // Changes written before a failure are recorded too: nothing effective goes unrecorded.
    const record = outcome.record;
    if (outcome.changes.length > 0 || (record !== undefined && !isEmptyRecordUpdate(record))) {
      const recorded = yield* callActivity<AccountRecord | null>(context, ACTIVITIES.recordStep, {
        connector,
        accountId,
        entries: journalEntriesOf(
          { requestId: request.requestId, connector, accountId, ...requestContextOf(request) },
          index,
          outcome.changes,
          now(),
        ),
        ...(record === undefined ? {} : { record }),
        ...(stored === undefined ? {} : { stored }),
      });
      if (recorded.ok) {
        // The record as stored now, when this step changed it.
        if (record !== undefined) {
          stored = recorded.value;
          handle.record = isLinked(stored) ? stored : null;
        }
      } else {
        stored = undefined;
        if (outcome.ok) outcome = { ...outcome, ok: false, error: recorded.error };
      }
    }
    if (!outcome.ok) {
      const held = yield* holdAfterFailure(context, hold, outcome.error);
      if ('held' in held && held.held) {
        // The step runs again from its start, on the account as the stores show it now.
        earlier = [...earlier, ...outcome.changes];
        if (held.lease !== undefined) {
          leaseEtag = held.lease.etag ?? leaseEtag;
          leaseTakenAt = held.lease.renewedAt;
        }
        handle = newAccountHandle();
        stored = undefined;
        index -= 1;
        continue;
      }
      if ('error' in held) outcome = { ...outcome, error: held.error };
      failAt(index, withHolds(outcome, earlier, hold));
      break;
    }
    report.steps[index] = stepEnded(
      report.steps[index] as StepReport,
      withHolds(outcome, earlier, hold),
      now(),
    );
    earlier = [];
  }

  yield* callActivity<null>(context, ACTIVITIES.releaseAccountLease, {
    ...lease,
    ...(leaseEtag === undefined ? {} : { etag: leaseEtag }),
  });
  if (!passwordDiscarded) yield* discardPassword(context, request);
  return yield* finish();
}

/**
 * Waits for the account's lease (polling on a durable timer); an error when it stays taken,
 * unless the connector is quarantined (its holder may be held): then it waits for that too.
 */
function* takeLease(
  context: OrchestrationContext,
  lease: { connector: string; accountId: string; owner: string },
  hold: HoldSubject,
): Step<{ error: SerializedError } | { etag?: string }> {
  let deadline = context.df.currentUtcDateTime.getTime() + LEASE_WAIT_MS;
  for (let poll = 0; ; poll++) {
    const nowMs = context.df.currentUtcDateTime.getTime();
    const result = yield* callActivity<LeaseResult>(context, ACTIVITIES.acquireAccountLease, {
      ...lease,
      nowMs,
      ttlMs: LEASE_TTL_MS,
    });
    if (!result.ok) return { error: result.error };
    if (result.value.acquired) {
      return result.value.etag === undefined ? {} : { etag: result.value.etag };
    }
    if (nowMs >= deadline) {
      const held = yield* waitWhileQuarantined(context, hold);
      if ('error' in held) return held;
      if (held.held) {
        deadline = context.df.currentUtcDateTime.getTime() + LEASE_WAIT_MS;
        continue;
      }
      const error: SerializedError = {
        code: 'ACCOUNT_BUSY',
        message:
          `account "${lease.accountId}" on connector "${lease.connector}" is still being changed by ` +
          `${result.value.holder ?? 'another request'} after ${LEASE_WAIT_MS / 60_000} minutes`,
        retryable: true,
        object: lease.accountId,
      };
      return { error };
    }
    yield* waitFor(context, Math.min(leasePollDelay(poll), Math.max(1_000, deadline - nowMs)));
  }
}

function* discardPassword(context: OrchestrationContext, request: ProvisioningRequest): Step<void> {
  if (request.passwordSecret === undefined) return;
  yield* callActivity<null>(context, ACTIVITIES.discardSecret, { name: request.passwordSecret });
}

/** Changes listed per step in custom status; the output lists them all. */
const CUSTOM_STATUS_CHANGES = 25;

/**
 * The report as custom status: Durable limits custom status to 16 KB, so a step with many
 * changes (a large setMemberships) lists the first ones and says how many more there are.
 */
export function customStatusOf(report: RequestReport): RequestReport {
  return {
    ...report,
    steps: report.steps.map((step) =>
      step.changes.length <= CUSTOM_STATUS_CHANGES
        ? step
        : {
            ...step,
            changes: step.changes.slice(0, CUSTOM_STATUS_CHANGES),
            notices: [
              ...step.notices,
              `${step.changes.length - CUSTOM_STATUS_CHANGES} more changes: listed when the request ends`,
            ],
          },
    ),
  };
}
