import type { OrchestrationContext } from 'durable-functions';
import {
  applyRecordUpdate,
  isEmptyRecordUpdate,
  isLinked,
  recordAfterUpdates,
} from '../../domain/account-record';
import type { SerializedError } from '../../domain/errors';
import { journalEntriesOf, type EffectiveChange } from '../../domain/journal-entry';
import { foundLaterEntries, withLostWriteContext } from '../../domain/lost-writes';
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
import { requestMeasures } from '../../domain/request-measures';
import { acceptedSince, isMembershipAction } from '../../domain/provisioning-request';
import { lastPasswordUse, requestStep, stepFlagsOf } from '../../domain/request-step';
import { newAccountHandle } from '../../domain/step-context';
import { STEP_OPS } from '../../domain/step-ops';
import type { StepOutcome, VerificationMeasure } from '../../domain/step-outcome';
import { indexEntryOf } from '../../store/request-index';
import type { RequestEnd } from '../activities/activity-inputs';
import { ACTIVITIES } from '../names';
import {
  commitStep,
  holdAccount,
  keepHold,
  LEASE_TTL_MS,
  releaseHold,
  renewalDue,
  renewedWhileHeld,
  writeLease,
} from './account-hold';
import { callActivity, type Step } from './activity-calls';
import { carry, unrecordedNotice, type CarriedCommit } from './carried-commit';
import { withIntentDay } from './dated-intents';
import { driveMachine } from './drive-machine';
import { openingAnswer, openingCreate } from './opening-create';
import { holdAfterFailure, withHolds, type HoldSubject } from './quarantine-hold';
import { RestoreJudgements } from './restore-under-lease';

/**
 * The provisioning request orchestration: the actions in order, each a step machine of
 * src/domain (account actions, the membership write procedure) driven on activities and
 * durable timers, with its state published in custom status; a failed step fails the
 * request and skips the rest. The account's lease keeps another request's writes from
 * interleaving with this one's (DESIGN invariant 7). Each step's effective changes and what
 * the service's record of the account learns are written together once the step ends; from
 * revision 3, a step that succeeded with another right after it is written with that one's
 * commit (`CarriedCommit`), and before the request waits on anything that can last.
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
    ...(request.notices === undefined || request.notices.length === 0
      ? {}
      : { notices: request.notices }),
    startedAt: now(),
  };
  /** Each step's read-back, by step index: for the verification metrics. */
  const verifications: (VerificationMeasure | undefined)[] = [];
  // Steps are replaced, never changed in place: a shallow copy is a snapshot.
  const publish = () => context.df.setCustomStatus(customStatusOf(report));
  /** The request's end as the list indexes it and the metrics count it. */
  const endOf = (steps: StepReport[], finishedAt: string): RequestEnd => ({
    ...indexEntryOf(request),
    status: requestStatus(steps),
    finishedAt,
    measures: requestMeasures({ ...report, steps }, verifications),
  });
  /**
   * Ends the request. `indexedAt`: the last step's commit indexed the end already, with this
   * time. The request's `finishedAt` is then when its last step ended, just before that
   * commit was written; else it is now, after the last write of the request.
   */
  function* finish(indexedAt?: string): Step<RequestReport> {
    report.status = requestStatus(report.steps);
    report.finishedAt = indexedAt ?? now();
    publish();
    // The request list learns the end; a failure to write it only leaves the list to ask
    // the orchestration itself, as it does while a request runs. The metrics count it with
    // the write, or on their own when no attempt could write it: once either way.
    if (indexedAt === undefined) {
      const end = endOf(report.steps, report.finishedAt);
      const indexed = yield* callActivity<null>(context, ACTIVITIES.indexRequestEnd, end);
      if (!indexed.ok) yield* callActivity<null>(context, ACTIVITIES.countRequestEnd, end);
    }
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
  const waiting: HoldSubject = {
    connector,
    requestId: request.requestId,
    heldMs: 0,
    notices: [],
    throttled: { holds: 0, waitedMs: 0 },
    holdsThrottling: acceptedSince(request, 2),
    show: (held) => {
      if (held === undefined) delete report.hold;
      else report.hold = held;
      publish();
    },
  };
  // The steps take the paths of the revision the request was accepted under (`stepFlagsOf`).
  const steps = { ...request, ...stepFlagsOf(request) };
  // The groups each membership step names are looked up with the lease: no step then needs
  // a lookup activity of its own (unless it runs again after a hold). Revision 5: a first
  // create is sent with them, once the lease is taken.
  const admitted = yield* holdAccount(
    context,
    { connector, accountId },
    request.actions[0]?.type === 'create',
    waiting,
    request.actions.flatMap((action, step) =>
      isMembershipAction(action) ? [{ step, selectors: action.groups }] : [],
    ),
    openingCreate(steps, request.intentDay),
  );
  if ('error' in admitted) {
    failAt(0, { error: admitted.error });
    yield* discardPassword(context, request, report);
    return yield* finish();
  }
  const { hold } = admitted;
  const lookedUp = new Map(admitted.roles.map((roles) => [roles.step, roles.found]));
  /** The first step's create as the first look sent it: the step takes its answer once. */
  let opened = yield* openingAnswer(context, admitted.created);

  // Held from here on, the request keeps the account's lease (DESIGN invariant 7).
  waiting.lease = { accountId, owner: hold.owner, ttlMs: LEASE_TTL_MS };

  let handle = newAccountHandle();
  /** A restore's steps, judged under the lease once, on their first run. */
  const restoreJudgements = new RestoreJudgements();
  const lastUse = lastPasswordUse(request.actions);
  let passwordDiscarded = request.passwordSecret === undefined;

  /** Changes a step made before it was held and ran again. */
  let earlier: EffectiveChange[] = [];
  /** When the request ended, once the last step's commit indexed its end. */
  let indexedAt: string | undefined;
  // Revision 3: a step that succeeded with another right after it is committed with that
  // one. What it carries is written before anything that can last: a renewal of the lease
  // (it rewrites the row; a lost lease ends the request), a hold (the failure before it
  // commits), and the end. The password's secret is discarded by the step that used it last,
  // before its commit is written either way: nothing later needs it, and no commit names it.
  const folds = acceptedSince(request, 3);
  let carried: CarriedCommit | undefined;
  /** Writes what is carried now (`release`: with the lease, at the end). */
  function* writeCarried(release: boolean): Step<void> {
    if (carried === undefined) return;
    const committed = yield* commitStep(context, hold, {
      entries: carried.entries,
      earlier: carried.updates,
      earlierSteps: carried.updateSteps,
      release,
    });
    if (committed.ok) carried = undefined;
    else if (release) {
      report.notices = [...(report.notices ?? []), unrecordedNotice(carried, committed.error)];
    }
  }
  const lease = writeLease(context, hold, waiting, folds ? () => writeCarried(false) : undefined);
  for (let index = 0; index < request.actions.length; index++) {
    report.steps[index] = {
      ...(report.steps[index] as StepReport),
      state: 'running',
      startedAt: now(),
    };
    publish();
    if (carried !== undefined && renewalDue(context, hold)) yield* writeCarried(false);
    const lost = yield* keepHold(context, hold, waiting);
    // A create the first look sent is this request's change whatever became of the lease
    // since: its step takes the answer and its commit is written; the next step meets the
    // lost lease and fails.
    if (lost !== undefined && opened === undefined) {
      failAt(index, lost);
      break;
    }
    // The record as stored once what is carried is written: the request is its only writer.
    handle.stored =
      carried === undefined
        ? hold.stored
        : recordAfterUpdates(hold.stored, connector, accountId, carried.updates);
    const roles = lookedUp.get(index);
    lookedUp.delete(index);
    // A restore's findings, judged again against the record read with the lease.
    const restoring = restoreJudgements.of(steps, index, handle.stored, roles);
    if (restoring.action === undefined) {
      report.steps[index] = {
        ...(report.steps[index] as StepReport),
        state: 'skipped',
        notices: restoring.notices,
        finishedAt: now(),
      };
      continue;
    }
    let outcome = yield* driveMachine(
      context,
      withIntentDay(
        requestStep(restoring.steps ?? steps, index, handle, restoring.roles),
        request.intentDay,
      ),
      lease,
      opened === undefined ? undefined : { op: STEP_OPS.createAccount, answer: opened },
    );
    opened = undefined;
    outcome = withLostWriteContext(outcome, request);
    if (restoring.notices.length > 0) {
      outcome = { ...outcome, notices: [...restoring.notices, ...outcome.notices] };
    }
    verifications[index] = outcome.verification;
    // A step that could not delete the secret after use leaves it to the request's end.
    if (outcome.ok && index === lastUse && outcome.passwordKept !== true) passwordDiscarded = true;
    if (outcome.record !== undefined) {
      handle.record =
        applyRecordUpdate(handle.record ?? undefined, connector, accountId, outcome.record) ?? null;
    }

    // Changes written before a failure are recorded too: nothing effective goes unrecorded.
    // The last step, when it succeeded, releases the lease in the same write, and the same
    // activity indexes and counts the request's end as it will be reported (a failed commit
    // or index write ends the request through indexRequestEnd instead); a failed step keeps
    // the lease (the request may be held and run the step again) until the end. A step that
    // succeeded with another after it is carried into that one's commit (revision 3).
    const record = outcome.record;
    // Changes of earlier requests this step found in place are journaled as theirs.
    const found = foundLaterEntries(connector, accountId, outcome.foundLater ?? []);
    const own =
      outcome.changes.length > 0 ||
      found.length > 0 ||
      (record !== undefined && !isEmptyRecordUpdate(record));
    const endAt = now();
    const entries = () => [
      ...journalEntriesOf(
        { requestId: request.requestId, connector, accountId, ...requestContextOf(request) },
        index,
        outcome.changes,
        endAt,
      ),
      ...found,
    ];
    const carriedOn = folds && outcome.ok && index < request.actions.length - 1;
    if (carriedOn) {
      if (own) carried = carry(carried, index, entries(), record);
    } else if (own || carried !== undefined) {
      const release = outcome.ok && index === request.actions.length - 1;
      const committed = yield* commitStep(context, hold, {
        entries: [...(carried?.entries ?? []), ...entries()],
        ...(record === undefined ? {} : { update: record, step: index }),
        ...(carried === undefined
          ? {}
          : { earlier: carried.updates, earlierSteps: carried.updateSteps }),
        release,
        ...(release ? { end: endOf(endedSteps(index, outcome, endAt), endAt) } : {}),
      });
      handle.stored = hold.stored;
      if (committed.ok) {
        if (record !== undefined || carried !== undefined) {
          handle.record = isLinked(hold.stored) ? hold.stored : null;
        }
        carried = undefined;
        // An answer from before commits indexed the end has no `indexed`: indexRequestEnd does.
        if (committed.value.indexed === true) indexedAt = endAt;
      } else if (outcome.ok) outcome = { ...outcome, ok: false, error: committed.error };
    }
    if (!outcome.ok) {
      const held = yield* holdAfterFailure(context, waiting, outcome.error);
      if ('held' in held && held.held) {
        // The step runs again from its start, on the account as the request holds it now.
        earlier = [...earlier, ...outcome.changes];
        if (held.lease !== undefined) renewedWhileHeld(hold, held.lease);
        handle = newAccountHandle();
        index -= 1;
        continue;
      }
      if ('error' in held) outcome = { ...outcome, error: held.error };
      failAt(index, withHolds(outcome, earlier, waiting));
      break;
    }
    report.steps[index] = stepEnded(
      report.steps[index] as StepReport,
      withHolds(outcome, earlier, waiting),
      carriedOn ? endAt : (indexedAt ?? now()),
    );
    earlier = [];
  }

  // Left carried only when its commit failed, or the lease was lost: one more try.
  yield* writeCarried(true);
  yield* releaseHold(context, hold);
  if (!passwordDiscarded) yield* discardPassword(context, request, report);
  return yield* finish(indexedAt);

  /** The steps as they will be reported when the step at `index` ends now with `outcome`. */
  function endedSteps(index: number, outcome: StepOutcome, at: string): StepReport[] {
    const steps = [...report.steps];
    // A copy of the holds' notices: the step takes them only once it has ended.
    const notices = { notices: [...waiting.notices] };
    steps[index] = stepEnded(steps[index] as StepReport, withHolds(outcome, earlier, notices), at);
    return steps;
  }
}

/**
 * Deletes the request's password secret at its end. When the secret store refuses, the
 * report says which secret holds the password still, for the operator to delete.
 */
function* discardPassword(
  context: OrchestrationContext,
  request: ProvisioningRequest,
  report: RequestReport,
): Step<void> {
  const name = request.passwordSecret;
  if (name === undefined) return;
  const discarded = yield* callActivity<null>(context, ACTIVITIES.discardSecret, { name });
  if (discarded.ok) return;
  report.notices = [
    ...(report.notices ?? []),
    `the password's secret "${name}" could not be deleted (${discarded.error.code}): it still holds the password; delete it from the secret store`,
  ];
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
