import type { OrchestrationContext } from 'durable-functions';
import type { SerializedError } from '../../domain/errors';
import { journalEntryKey, type JournalEntry } from '../../domain/journal-entry';
import { isMembershipAction, type ProvisioningRequest } from '../../domain/provisioning-request';
import {
  initialSteps,
  requestStatus,
  skipRemaining,
  type RequestReport,
  type StepReport,
} from '../../domain/request-report';
import type { LeaseResult } from '../../store/account-leases';
import { ACTIVITIES } from '../names';
import { callActivity, waitFor, type Step } from './activity-calls';
import { accountStep, currentAccount } from './account-step';
import { membershipStep } from './membership-step';
import { accountNotFound, failed, type RequestState, type StepOutcome } from './step-outcome';

/**
 * A lease outlives any one step (the re-read loop is at most 30 s); it is renewed before a
 * step once half of it has passed.
 */
const LEASE_TTL_MS = 5 * 60_000;
/** How long a request waits for another request on the same account before it fails. */
const LEASE_WAIT_MS = 10 * 60_000;
const LEASE_POLL_MS = 1_000;

/**
 * The provisioning request orchestration: the actions in order, each a step with a state
 * published in custom status; a failed step fails the request and skips the rest. The
 * account's lease keeps another request's membership writes from interleaving with this
 * one's (DESIGN invariant 7). Effective changes are journaled after each step.
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
    status: 'running',
    steps: initialSteps(request.actions),
    startedAt: now(),
  };
  // Steps are replaced, never changed in place: a shallow copy is a snapshot.
  const publish = () => context.df.setCustomStatus(customStatusOf(report));
  const finish = (): RequestReport => {
    report.status = requestStatus(report.steps);
    report.finishedAt = now();
    publish();
    return report;
  };
  const failAt = (index: number, outcome: StepOutcome | { error: SerializedError }) => {
    const step = report.steps[index] as StepReport;
    report.steps[index] = {
      ...step,
      state: 'failed',
      changes: 'changes' in outcome ? outcome.changes : [],
      notices: 'notices' in outcome ? outcome.notices : [],
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    };
    report.steps = skipRemaining(report.steps, index);
  };
  publish();

  const lease = {
    connector: request.connector,
    accountId: request.account.accountId,
    owner: context.df.instanceId,
  };
  const taken = yield* takeLease(context, lease);
  let leaseTakenAt = context.df.currentUtcDateTime.getTime();
  let leaseEtag = 'etag' in taken ? taken.etag : undefined;
  if ('error' in taken) {
    failAt(0, { error: taken.error });
    yield* discardPassword(context, request);
    return finish();
  }

  const state: RequestState = {
    connector: request.connector,
    accountId: request.account.accountId,
    account: undefined,
  };
  const lastPasswordUse = request.actions
    .map((a) => a.type)
    .findLastIndex((t) => t === 'create' || t === 'setPassword');
  let passwordDiscarded = request.passwordSecret === undefined;

  for (const [index, action] of request.actions.entries()) {
    report.steps[index] = { ...(report.steps[index] as StepReport), state: 'running' };
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
    let outcome: StepOutcome;
    if (isMembershipAction(action)) {
      const found = yield* currentAccount(context, state);
      outcome = !found.ok
        ? failed(found.error)
        : found.value === null
          ? failed(accountNotFound(state))
          : yield* membershipStep(context, {
              connector: request.connector,
              account: found.value,
              type: action.type,
              groups: action.groups,
              capabilities: request.capabilities,
            });
    } else {
      outcome = yield* accountStep(context, state, {
        request,
        action: action.type,
        lastPasswordUse: index === lastPasswordUse,
        at: now(),
      });
      if (outcome.ok && index === lastPasswordUse) passwordDiscarded = true;
    }

    // Changes written before a failure are journaled too: nothing effective goes unrecorded.
    if (outcome.changes.length > 0) {
      const at = now();
      const entries: JournalEntry[] = outcome.changes.map((change) => ({
        key: journalEntryKey(request.requestId, index, change.change, change.groupId),
        connector: request.connector,
        accountId: request.account.accountId,
        requestId: request.requestId,
        step: index,
        change: change.change,
        ...(change.groupId === undefined ? {} : { groupId: change.groupId }),
        ...(change.groupName === undefined ? {} : { groupName: change.groupName }),
        at,
      }));
      const recorded = yield* callActivity<null>(context, ACTIVITIES.recordJournal, { entries });
      if (!recorded.ok && outcome.ok) outcome = { ...outcome, ok: false, error: recorded.error };
    }
    if (!outcome.ok) {
      failAt(index, outcome);
      break;
    }
    report.steps[index] = {
      ...report.steps[index],
      state: 'succeeded',
      changes: outcome.changes,
      notices: outcome.notices,
    };
  }

  yield* callActivity<null>(context, ACTIVITIES.releaseAccountLease, {
    ...lease,
    ...(leaseEtag === undefined ? {} : { etag: leaseEtag }),
  });
  if (!passwordDiscarded) yield* discardPassword(context, request);
  return finish();
}

/** Waits for the account's lease (polling on a durable timer); an error when it stays taken. */
function* takeLease(
  context: OrchestrationContext,
  lease: { connector: string; accountId: string; owner: string },
): Step<{ error: SerializedError } | { etag?: string }> {
  const deadline = context.df.currentUtcDateTime.getTime() + LEASE_WAIT_MS;
  for (;;) {
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
    yield* waitFor(context, LEASE_POLL_MS);
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
