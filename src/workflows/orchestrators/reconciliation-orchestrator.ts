import type { OrchestrationContext } from 'durable-functions';
import {
  emptyPass,
  reconciliationResult,
  type BulkPass,
  type DeferredAccount,
  type ReconciliationPass,
} from '../../domain/reconciliation-result';
import type { RecheckDeferredInput, ReconcileInput } from '../activities/activity-inputs';
import { ACTIVITIES } from '../names';
import { callActivity, waitFor, type Step } from './activity-calls';
import type { JobInput, JobReport } from './job-orchestrators';

/** The settle window when the job's input names none (issue 18: "default 2 minutes"). */
export const DEFAULT_SETTLE_SECONDS = 120;
/**
 * How many times accounts a request keeps busy are waited for (each wait one settle window):
 * past that they are "not checked" in the result, and the next run judges them.
 */
const SETTLE_ROUNDS = 5;

/**
 * A reconciliation job ("Reconcile SCIM accounts" / "Reconcile Directory accounts", issue
 * 18): the bulk pass, then, for accounts a request ran for or ended for inside the settle
 * window, a durable wait until the window has passed and a pass over them alone, as often as
 * requests keep them busy (up to five windows). The result counts the findings per type.
 */
export function* reconciliationOrchestrator(context: OrchestrationContext): Step<JobReport> {
  const input = context.df.getInput<JobInput>();
  const startedAt = context.df.currentUtcDateTime.toISOString();
  const settleMs = (input.settleSeconds ?? DEFAULT_SETTLE_SECONDS) * 1000;
  const report: JobReport = {
    jobId: input.jobId,
    type: input.type,
    connector: input.connector,
    status: 'running',
    settleSeconds: settleMs / 1000,
    trigger: input.trigger,
    startedAt,
  };
  context.df.setCustomStatus(report);
  const base: ReconcileInput = {
    connector: input.connector,
    jobId: input.jobId,
    at: startedAt,
    readAt: startedAt,
    settleMs,
  };
  const bulk = yield* callActivity<BulkPass>(context, ACTIVITIES.reconcileTarget, base);
  if (!bulk.ok) return finish(context, report, { error: bulk.error });

  const later: ReconciliationPass[] = [];
  let deferred: DeferredAccount[] = bulk.value.deferred;
  for (let round = 0; deferred.length > 0 && round < SETTLE_ROUNDS; round++) {
    const wakeAt = Math.max(...deferred.map((account) => account.notBeforeMs));
    context.df.setCustomStatus({
      ...report,
      progress: { phase: 'waiting for requests to settle', accounts: deferred.length },
    });
    const now = context.df.currentUtcDateTime.getTime();
    yield* waitFor(context, Math.max(1_000, Math.min(wakeAt - now, settleMs)));
    const pass = yield* callActivity<ReconciliationPass>(context, ACTIVITIES.recheckDrift, {
      ...base,
      readAt: context.df.currentUtcDateTime.toISOString(),
      deferred,
    } satisfies RecheckDeferredInput);
    if (!pass.ok) {
      later.push({
        ...emptyPass(),
        incomplete: [`accounts kept busy by requests could not be judged: ${pass.error.message}`],
      });
      break;
    }
    later.push(pass.value);
    deferred = pass.value.deferred;
  }
  return finish(context, report, {
    result: reconciliationResult(bulk.value, later, deferred),
  });
}

function finish(
  context: OrchestrationContext,
  report: JobReport,
  end: Pick<JobReport, 'result' | 'error'>,
): JobReport {
  const done: JobReport = {
    ...report,
    status: end.error === undefined ? 'succeeded' : 'failed',
    finishedAt: context.df.currentUtcDateTime.toISOString(),
    ...end,
  };
  context.df.setCustomStatus({ ...done, result: undefined });
  return done;
}
