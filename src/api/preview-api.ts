import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { ConnectorRegistry } from '../connectors/connector-registry';
import { requestContextOf } from '../domain/request-context';
import type { RequestPlan, RequestPreviewInput } from '../domain/request-preview';
import { jobInstanceId, ORCHESTRATIONS } from '../workflows/names';
import type { JobInput } from '../workflows/orchestrators/job-orchestrators';
import { runRequestPreview } from '../workflows/request-preview-run';
import type { ApiDeps } from './api-deps';
import { unknownConnector } from './http-problem';
import { invalidRequestAnswer } from './invalid-request';
import { checkRequest, type RequestCheck } from './request-check';
import { actionsOf } from './request-schema';

/** The job type of a preview answered later. */
export const PREVIEW_JOB_TYPE = 'Request preview';

/** How long `POST /api/requests` with `"mode": "preview"` waits for the plan before it hands it to a job. */
export const PREVIEW_WAIT_MS = 5_000;

export type PreviewCheck =
  Exclude<RequestCheck, { kind: 'valid' }> | { kind: 'ready'; input: RequestPreviewInput };

/**
 * A preview's body, checked as a request's is (the same schema, the same rules); a password
 * is checked and dropped here: the preview only learns that there was one.
 */
export function checkPreview(body: unknown, registry: ConnectorRegistry): PreviewCheck {
  const checked = checkRequest(body, registry);
  if (checked.kind !== 'valid') return checked;
  const { request, connector } = checked;
  return {
    kind: 'ready',
    input: {
      ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
      connector: request.connector,
      ...requestContextOf(request),
      account: request.account,
      actions: actionsOf(request),
      hasPassword: request.password !== undefined,
      capabilities: { ...connector.capabilities },
    },
  };
}

/**
 * `POST /api/requests` with `"mode": "preview"` (issue 14): the plan at once (200) when the
 * reads take less than `previewWaitMs`; else a job (202 with the job URL) that plans again and
 * holds the plan as its result. Nothing is started that writes, and no requestId is taken.
 */
export async function answerPreview(
  deps: ApiDeps,
  request: HttpRequest,
  context: InvocationContext,
  body: unknown,
): Promise<HttpResponseInit> {
  const checked = checkPreview(body, (await deps.services()).registry);
  if (checked.kind === 'invalid') return invalidRequestAnswer(checked);
  if (checked.kind === 'unknown connector') return unknownConnector(checked.connector);
  const { input } = checked;
  const abort = new AbortController();
  const planned = runRequestPreview(deps.services, input, deps.now().getTime(), abort.signal);
  const plan = await within(planned, deps.previewWaitMs ?? PREVIEW_WAIT_MS);
  if (plan !== undefined) return { status: 200, jsonBody: plan };

  // The reads are slow: stop at the next one, and let a job plan it where nobody waits.
  abort.abort();
  const job: JobInput = {
    jobId: randomUUID(),
    type: PREVIEW_JOB_TYPE,
    connector: input.connector,
    trigger: 'api',
    preview: input,
  };
  await deps
    .orchestrations(context)
    .startNew(ORCHESTRATIONS.requestPreview, jobInstanceId(job.jobId), job);
  const statusUrl = new URL(`/api/jobs/${job.jobId}`, request.url).toString();
  context.log(
    `preview of a request for connector ${input.connector}: slow reads, job ${job.jobId}`,
  );
  return {
    status: 202,
    headers: { location: statusUrl },
    jsonBody: { mode: 'preview', jobId: job.jobId, type: job.type, statusUrl },
  };
}

/** The plan when it comes within `ms`; undefined after (its later failure is dropped). */
async function within(planned: Promise<RequestPlan>, ms: number): Promise<RequestPlan | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([planned, late]);
  } finally {
    clearTimeout(timer);
    planned.catch(() => undefined);
  }
}

/** Whether a request body asks for a preview (its validation comes after). */
export function isPreview(body: unknown): boolean {
  return (body as { mode?: unknown } | null)?.mode === 'preview';
}
