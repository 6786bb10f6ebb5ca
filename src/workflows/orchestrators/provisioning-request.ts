import type { OrchestrationContext } from 'durable-functions';
import {
  applyRecordUpdate,
  isEmptyRecordUpdate,
  isLinked,
  type AccountRecord,
} from '../../domain/account-record';
import type { SerializedError } from '../../domain/errors';
import { journalEntriesOf } from '../../domain/journal-entry';
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
  const lease = { connector, accountId, owner: context.df.instanceId };
  const taken = yield* takeLease(context, lease);
  let leaseTakenAt = context.df.currentUtcDateTime.getTime();
  let leaseEtag = 'etag' in taken ? taken.etag : undefined;
  if ('error' in taken) {
    failAt(0, { error: taken.error });
    yield* discardPassword(context, request);
    return yield* finish();
  }

  const handle = newAccountHandle();
  /** The account record as stored, once a step of this request wrote it (undefined: not known). */
  let stored: AccountRecord | null | undefined;
  const lastUse = lastPasswordUse(request.actions);
  let passwordDiscarded = request.passwordSecret === undefined;

  for (const index of request.actions.keys()) {
    report.steps[index] = {
      ...(report.steps[index] as StepReport),
      state: 'running',
      startedAt: now(),
    };
    publish();
    if (context.df.currentUtcDateTime.getTime() - leaseTakenAt > LEASE_TTL_MS / 2) {
      leaseTakenAt = context.df.currentUtcDateTime.getTime();
      const renewed = yield* takeLease(context, lease);
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
      failAt(index, outcome);
      break;
    }
    report.steps[index] = stepEnded(report.steps[index], outcome, now());
  }

  yield* callActivity<null>(context, ACTIVITIES.releaseAccountLease, {
    ...lease,
    ...(leaseEtag === undefined ? {} : { etag: leaseEtag }),
  });
  if (!passwordDiscarded) yield* discardPassword(context, request);
  return yield* finish();
}

/** Waits for the account's lease (polling on a durable timer); an error when it stays taken. */
function* takeLease(
  context: OrchestrationContext,
  lease: { connector: string; accountId: string; owner: string },
): Step<{ error: SerializedError } | { etag?: string }> {
  const deadline = context.df.currentUtcDateTime.getTime() + LEASE_WAIT_MS;
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
