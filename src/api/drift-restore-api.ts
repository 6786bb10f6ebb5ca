import { createHash } from 'node:crypto';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { z } from 'zod';
import type { AccountRecord } from '../domain/account-record';
import type { DriftFinding } from '../domain/drift-finding';
import { isProvisioningError, type SerializedError } from '../domain/errors';
import { httpStatusOf } from '../domain/error-catalogue';
import {
  notRestorable,
  planRestore,
  restoredFindingOf,
  stillRestorable,
  type RestoreRequest,
} from '../domain/drift-restore';
import { requestInstanceId } from '../workflows/names';
import { ENDED_STATUSES, type OrchestrationClient } from '../workflows/orchestration-client';
import type { WorkflowServices } from '../workflows/workflow-services';
import type { ApiDeps } from './api-deps';
import { FUNCTION_KEY_HOLDER, submitterOf } from './caller';
import { callerOf } from './entrances';
import { problem, unknownConnector } from './http-problem';
import { markRestored, type RestoreMark } from './drift-restore-mark';
import { readJsonBody } from './read-body';
import { driftFilter } from './drift-report-api';
import { describeProblems, requestContextSchema } from './request-schema';
import { submitProvisioningRequest } from './submit-request';
import { checkPreview } from './preview-api';
import { runRequestPreview } from '../workflows/request-preview-run';

const restoreBody = z
  .strictObject({
    findingIds: z
      .array(z.string().min(1).max(64))
      .min(1, 'name at least one finding')
      .max(500, 'at most 500 findings at once')
      .optional(),
    filter: z.strictObject(driftFilter).optional(),
    mode: z.enum(['preview'], { error: 'must be "preview" (or left out)' }).optional(),
    ...requestContextSchema,
  })
  .refine((body) => (body.findingIds === undefined) !== (body.filter === undefined), {
    message: 'name the findings to restore: either findingIds or filter, not both',
    path: ['findingIds'],
  });

/** Findings one restore turns into requests at most. */
const MAX_FINDINGS = 500;

/**
 * `POST /api/connectors/{name}/drift/restore` (issue 18: "repair on purpose, never by
 * itself"): open findings, named by id or by a filter, become ordinary provisioning requests,
 * one per account, that run the same procedure, verification and journal as any request:
 * revoke what was added outside, grant again what was removed, lock or unlock back. Named
 * findings are all checked before anything starts: an unknown one is 404, a closed one 409
 * `DRIFT_FINDING_CLOSED`, one the service cannot restore (an unlinked member, a deleted
 * account) 409 `DRIFT_NOT_RESTORABLE`. A filter restores what it can and lists the rest.
 * With `"mode": "preview"`, 200 with each request's plan instead, and nothing started.
 */
export function driftRestoreHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    if (services.registry.settings(name) === undefined) return unknownConnector(name);
    const read = await readJsonBody(request);
    if ('response' in read) return read.response;
    const parsed = restoreBody.safeParse(read.body);
    if (!parsed.success) {
      return problem(400, 'REQUEST_INVALID', 'invalid restore', {
        problems: describeProblems(parsed.error),
      });
    }
    const { findingIds, filter, mode, ...audit } = parsed.data;
    const chosen =
      findingIds === undefined
        ? await byFilter(services, name, filter ?? {})
        : await byIds(services, name, findingIds);
    if ('response' in chosen) return chosen.response;
    // What the service did since the findings were seen decides what may still be restored.
    const current = await stillStanding(services, name, chosen);

    const caller = callerOf(request);
    const submittedBy = submitterOf(caller, deps.keyHolder ?? FUNCTION_KEY_HOLDER);
    const requestedBy =
      audit.requestedBy ?? (caller?.kind === 'principal' ? caller.name : undefined);
    const bodyOf = (planned: RestoreRequest) => ({
      connector: name,
      account: { accountId: planned.accountId },
      actions: planned.actions,
      ...(requestedBy === undefined ? {} : { requestedBy }),
      reason:
        audit.reason ??
        `restore what the service assigned: drift findings ${planned.findingIds.join(', ')}`,
      ...(audit.correlationId === undefined ? {} : { correlationId: audit.correlationId }),
    });
    // One request per account, however its findings spell it (two would race for its lease).
    const plans = planRestore(current.findings, (id) => services.registry.accountKey(name, id));
    if (mode === 'preview') {
      return previewRestores(deps, name, plans, bodyOf, current.skipped);
    }
    const orchestrations = deps.orchestrations(context);
    const restores: StartedRestore[] = [];
    const failed: { accountId: string; findingIds: string[]; error: SerializedError }[] = [];
    for (const planned of plans) {
      const findings = current.findings.filter((f) => planned.findingIds.includes(f.findingId));
      // Each account on its own: one that fails (a conflict, storage failing) is said beside
      // those already started, which run whatever the answer says.
      try {
        const started = await startRestore(planned, findings);
        if ('refused' in started) {
          failed.push({
            accountId: planned.accountId,
            findingIds: planned.findingIds,
            error: started.refused,
          });
        } else {
          restores.push(started.restore);
        }
      } catch (error) {
        failed.push({
          accountId: planned.accountId,
          findingIds: planned.findingIds,
          error: failureOf(error, planned.accountId, context),
        });
      }
    }
    const answer = { connector: name, restores, failed, skipped: current.skipped };
    if (restores.length > 0 || failed.length === 0) return { status: 202, jsonBody: answer };
    // Nothing started: the first failure's status and error, with every account's failure.
    return {
      status: httpStatusOf(failed[0]!.error),
      jsonBody: { error: failed[0]!.error, ...answer },
    };

    async function startRestore(
      planned: RestoreRequest,
      findings: DriftFinding[],
    ): Promise<{ restore: StartedRestore } | { refused: SerializedError }> {
      // A restore of these findings still running (a retried POST whose answer was lost):
      // it is the answer, and nothing starts twice.
      const running = await runningRestore(orchestrations, findings);
      if (running !== undefined) {
        const restore = {
          requestId: running,
          accountId: planned.accountId,
          actions: planned.actions,
          findingIds: planned.findingIds,
          statusUrl: new URL(`/api/requests/${running}`, request.url).toString(),
          alreadyRunning: true,
          // The findings as just read name this request: the stored rows carry the mark.
          marked: true as const,
        };
        return { restore };
      }
      const body = { ...bodyOf(planned), requestId: restoreRequestId(name, planned, findings) };
      const outcome = await submitProvisioningRequest(body, services, orchestrations, {
        source: 'http',
        now: deps.now(),
        ...(submittedBy === undefined ? {} : { submittedBy }),
        // Checked again under the account's lease: a request holding it now may write first.
        restores: findings.map(restoredFindingOf),
      });
      if (outcome.kind === 'conflict') return { refused: outcome.error };
      if (outcome.kind !== 'started' && outcome.kind !== 'duplicate') {
        return {
          refused: internalError(
            `the restore request of "${planned.accountId}" was refused`,
            planned.accountId,
          ),
        };
      }
      // From here the request runs: whatever the mark meets, the answer lists it as started.
      const mark = await markRestored(services, findings, {
        requestId: outcome.requestId,
        at: deps.now().toISOString(),
      }).catch((error: unknown): RestoreMark => {
        context.error(
          `drift restore of account "${planned.accountId}": marking the findings failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
        );
        return {
          marked: false,
          notice: `request ${outcome.requestId} was started and runs, but marking the findings with it failed unexpectedly (the operator log has the details); send the same restore again to mark them (it joins this request, nothing starts twice)`,
        };
      });
      context.log(
        `drift restore of account "${planned.accountId}" on ${name}: request ${outcome.requestId}`,
      );
      if (!mark.marked) context.warn(mark.notice);
      const ran =
        outcome.kind === 'duplicate'
          ? await endedBefore(orchestrations, outcome.requestId)
          : undefined;
      const restore = {
        requestId: outcome.requestId,
        accountId: planned.accountId,
        actions: planned.actions,
        findingIds: planned.findingIds,
        statusUrl: new URL(`/api/requests/${outcome.requestId}`, request.url).toString(),
        ...mark,
        ...(ran === undefined ? {} : { alreadyEnded: ran.alreadyEnded }),
        ...(ran?.notice === undefined
          ? {}
          : { notice: mark.marked ? ran.notice : `${ran.notice}; ${mark.notice}` }),
      };
      return { restore };
    }
  };
}

/** One request a restore started (or joined), as the answer lists it. */
type StartedRestore = {
  requestId: string;
  accountId: string;
  actions: RestoreRequest['actions'];
  findingIds: string[];
  statusUrl: string;
  alreadyRunning?: boolean;
  /** The restore ran before as this request, which has ended: nothing started now. */
  alreadyEnded?: { status: string };
  notice?: string;
} & RestoreMark;

/**
 * A restore sent again whose findings its first request could not mark, once that request
 * has ended: the same request id, so nothing starts (a requestId never runs twice). Said as
 * it is, with how it ended, rather than as a restore started: one that failed put nothing
 * back, and its findings carry it now, so the same restore sent again starts a new request.
 * Undefined while it runs (it is joined), or when its state cannot be read.
 */
async function endedBefore(
  orchestrations: OrchestrationClient,
  requestId: string,
): Promise<{ alreadyEnded: { status: string }; notice?: string } | undefined> {
  const state = await orchestrations.getStatus(requestInstanceId(requestId)).catch(() => undefined);
  if (state === undefined || !ENDED_STATUSES.has(state.runtimeStatus)) return undefined;
  const report = state.output as { status?: string } | null | undefined;
  const status = state.runtimeStatus === 'Completed' ? (report?.status ?? 'completed') : 'failed';
  return {
    alreadyEnded: { status },
    ...(status === 'succeeded'
      ? {}
      : {
          notice:
            `this restore ran before as request ${requestId}, which ended ${status}: nothing ` +
            'started now; its findings carry that request now, so the same restore sent again ' +
            'starts a new one',
        }),
  };
}

/** A failure nobody answered, as one account's entry of `failed`; an unexpected one says nothing of its cause. */
function failureOf(error: unknown, accountId: string, context: InvocationContext): SerializedError {
  if (isProvisioningError(error)) return error.toJSON();
  context.error(
    `drift restore of account "${accountId}": unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
  );
  return internalError(
    `the restore of "${accountId}" failed unexpectedly; the operator log has the details`,
    accountId,
  );
}

function internalError(message: string, accountId: string): SerializedError {
  return { code: 'INTERNAL_ERROR', message, retryable: false, object: accountId };
}

/**
 * The request id of a restore: the same for the same findings until one of them is restored
 * (a POST sent again before its findings were marked joins the request it started), and new
 * once they carry that restore (a restore that failed can be asked for again).
 */
export function restoreRequestId(
  connector: string,
  planned: RestoreRequest,
  findings: readonly DriftFinding[],
): string {
  const earlier = findings.map((finding) => finding.restore?.requestId ?? '').sort();
  const key = [connector, planned.accountId, ...[...planned.findingIds].sort(), ...earlier];
  return `restore-${createHash('sha256').update(key.join('\n')).digest('hex').slice(0, 40)}`;
}

/** The request of an earlier restore of these findings that has not ended yet, if any. */
async function runningRestore(
  orchestrations: OrchestrationClient,
  findings: readonly DriftFinding[],
): Promise<string | undefined> {
  for (const requestId of new Set(findings.flatMap((f) => f.restore?.requestId ?? []))) {
    const state = await orchestrations.getStatus(requestInstanceId(requestId));
    if (state?.runtimeStatus === 'Pending' || state?.runtimeStatus === 'Running') return requestId;
  }
  return undefined;
}

/**
 * `"mode": "preview"`: the plan of each restore request, from the very step machines a
 * request runs, with the target read now and nothing written; the findings are not marked.
 * The accounts are planned one after the other (each plan reads the target).
 */
async function previewRestores(
  deps: ApiDeps,
  connector: string,
  planned: readonly RestoreRequest[],
  bodyOf: (planned: RestoreRequest) => unknown,
  skipped: { findingId: string; reason: string }[],
): Promise<HttpResponseInit> {
  const { registry } = await deps.services();
  const restores = [];
  for (const one of planned) {
    const checked = checkPreview(bodyOf(one), registry);
    if (checked.kind !== 'ready') {
      return problem(
        500,
        'INTERNAL_ERROR',
        `the restore of "${one.accountId}" could not be planned`,
        {
          object: one.accountId,
        },
      );
    }
    const plan = await runRequestPreview(deps.services, checked.input, deps.now().getTime());
    restores.push({
      accountId: one.accountId,
      actions: one.actions,
      findingIds: one.findingIds,
      plan,
    });
  }
  return { status: 200, jsonBody: { mode: 'preview', connector, restores, skipped } };
}

type Chosen =
  | { findings: DriftFinding[]; skipped: { findingId: string; reason: string }[] }
  | { response: HttpResponseInit };

async function byIds(
  services: WorkflowServices,
  connector: string,
  ids: readonly string[],
): Promise<Chosen> {
  const findings: DriftFinding[] = [];
  for (const id of new Set(ids)) {
    const finding = await services.drift.get(connector, id);
    if (finding === undefined) {
      return {
        response: problem(
          404,
          'DRIFT_FINDING_NOT_FOUND',
          `connector "${connector}" has no drift finding "${id}"`,
          { object: id },
        ),
      };
    }
    const why = notRestorable(finding);
    if (why !== undefined) {
      const code = finding.status === 'closed' ? 'DRIFT_FINDING_CLOSED' : 'DRIFT_NOT_RESTORABLE';
      return {
        response: problem(
          409,
          code,
          `drift finding "${id}" (${finding.type}) cannot be restored: ${why}; nothing was started`,
          {
            object: id,
          },
        ),
      };
    }
    findings.push(finding);
  }
  return { findings, skipped: [] };
}

async function byFilter(
  services: WorkflowServices,
  connector: string,
  filter: { type?: DriftFinding['type']; accountId?: string; groupId?: string },
): Promise<Chosen> {
  const findings: DriftFinding[] = [];
  const skipped: { findingId: string; reason: string }[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await services.drift.query({
      connector,
      ...filter,
      status: 'open',
      limit: 500,
      ...(continuationToken === undefined ? {} : { continuationToken }),
    });
    for (const finding of page.findings) {
      const why = notRestorable(finding);
      if (why === undefined) findings.push(finding);
      else skipped.push({ findingId: finding.findingId, reason: why });
    }
    continuationToken = page.continuationToken;
    // Read on past the limit: one finding more is how a filter that matches too many is known.
  } while (continuationToken !== undefined && findings.length <= MAX_FINDINGS);
  if (findings.length > MAX_FINDINGS) {
    return {
      response: problem(
        400,
        'REQUEST_INVALID',
        `the filter matches more than ${MAX_FINDINGS} open findings to restore: narrow it (type, accountId, groupId) and restore in parts; nothing was started`,
      ),
    };
  }
  return { findings, skipped };
}

/**
 * The chosen findings the service's record of each account, read now, still supports (see
 * {@link stillRestorable}); the others join `skipped` with the reason. One read per account.
 */
async function stillStanding(
  services: WorkflowServices,
  connector: string,
  chosen: { findings: DriftFinding[]; skipped: { findingId: string; reason: string }[] },
): Promise<{ findings: DriftFinding[]; skipped: { findingId: string; reason: string }[] }> {
  const records = new Map<string, Promise<AccountRecord | undefined>>();
  const findings: DriftFinding[] = [];
  const skipped = [...chosen.skipped];
  for (const finding of chosen.findings) {
    const accountId = finding.accountId ?? finding.targetId;
    const key = services.registry.accountKey(connector, accountId);
    if (!records.has(key)) records.set(key, services.accounts.get(connector, accountId));
    const why = stillRestorable(finding, await records.get(key));
    if (why === undefined) findings.push(finding);
    else skipped.push({ findingId: finding.findingId, reason: why });
  }
  return { findings, skipped };
}
