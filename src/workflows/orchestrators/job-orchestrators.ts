import type { OrchestrationContext } from 'durable-functions';
import type { SerializedError } from '../../domain/errors';
import type { RequestPreviewInput } from '../../domain/request-preview';
import { ACTIVITIES } from '../names';
import { callActivity, type Step } from './activity-calls';

/**
 * A job's type: the catalogue import's or the reconciliation's, as the connector's kind names
 * them (spec: "Import SCIM groups", "Import Directory Groups"; "Reconcile SCIM accounts",
 * "Reconcile Directory accounts"), or "Compatibility run".
 */
export type JobType = string;

export interface JobInput {
  jobId: string;
  type: JobType;
  connector: string;
  /** Catalogue imports: the "Overwrite existing roles" option. */
  overwriteExisting?: boolean;
  /** Catalogue imports: only the changes since the last import, where the connector can tell them. */
  incremental?: boolean;
  /** Compatibility runs: the group to grant and revoke. */
  groupName?: string;
  /** Reconciliations: how long after a request's end its account is left alone. */
  settleSeconds?: number;
  trigger: 'api' | 'schedule' | 'cli';
  /** Request previews: the request to plan (its password left behind). */
  preview?: RequestPreviewInput;
}

export interface JobReport {
  jobId: string;
  type: JobType;
  connector: string;
  status: 'running' | 'succeeded' | 'failed';
  overwriteExisting?: boolean;
  incremental?: boolean;
  groupName?: string;
  settleSeconds?: number;
  trigger: JobInput['trigger'];
  startedAt: string;
  finishedAt?: string;
  result?: unknown;
  error?: SerializedError;
}

/**
 * A catalogue import job: new groups added, renames per the overwrite option, gone groups
 * marked; incremental (only the changes since the last import) where asked and possible.
 */
export function* catalogueImportOrchestrator(context: OrchestrationContext): Step<JobReport> {
  return yield* runJob(context, ACTIVITIES.importCatalogue, (input, at) => ({
    connector: input.connector,
    jobId: input.jobId,
    overwriteExisting: input.overwriteExisting === true,
    incremental: input.incremental === true,
    at,
  }));
}

/** The compatibility run of connector A with a test account; it cleans up after itself. */
export function* compatibilityRunOrchestrator(context: OrchestrationContext): Step<JobReport> {
  return yield* runJob(context, ACTIVITIES.runCompatibility, (input) => ({
    connector: input.connector,
    jobId: input.jobId,
    ...(input.groupName === undefined ? {} : { groupName: input.groupName }),
  }));
}

/**
 * A request preview whose reads were too slow to answer at once (issue 14, Preview): the
 * plan is the job's result.
 */
export function* requestPreviewOrchestrator(context: OrchestrationContext): Step<JobReport> {
  return yield* runJob(context, ACTIVITIES.previewRequest, (input, at) => ({
    request: input.preview,
    at,
  }));
}

function* runJob(
  context: OrchestrationContext,
  activity:
    | typeof ACTIVITIES.importCatalogue
    | typeof ACTIVITIES.runCompatibility
    | typeof ACTIVITIES.previewRequest,
  activityInput: (input: JobInput, at: string) => unknown,
): Step<JobReport> {
  const input = context.df.getInput<JobInput>();
  const startedAt = context.df.currentUtcDateTime.toISOString();
  const report: JobReport = {
    jobId: input.jobId,
    type: input.type,
    connector: input.connector,
    status: 'running',
    ...(input.overwriteExisting === undefined
      ? {}
      : { overwriteExisting: input.overwriteExisting }),
    ...(input.incremental === undefined ? {} : { incremental: input.incremental }),
    ...(input.groupName === undefined ? {} : { groupName: input.groupName }),
    trigger: input.trigger,
    startedAt,
  };
  context.df.setCustomStatus(report);
  const result = yield* callActivity<unknown>(context, activity, activityInput(input, startedAt));
  const done: JobReport = {
    ...report,
    status: result.ok ? 'succeeded' : 'failed',
    finishedAt: context.df.currentUtcDateTime.toISOString(),
    ...(result.ok ? { result: result.value } : { error: result.error }),
  };
  context.df.setCustomStatus({ ...done, result: undefined });
  return done;
}
