import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { ProvisioningRequest } from '../domain/provisioning-request';
import { requestContextOf } from '../domain/request-context';
import { initialSteps, skipRemaining, type RequestReport } from '../domain/request-report';
import { requestInstanceId } from '../workflows/names';
import type { OrchestrationState } from '../workflows/orchestration-client';
import type { ApiDeps } from './api-deps';
import { FUNCTION_KEY_HOLDER, submitterOf } from './caller';
import { withCompatibilityHints } from './compatibility-hints';
import { callerOf } from './entrances';
import { errorResponse, problem, unknownConnector } from './http-problem';
import { invalidRequestAnswer } from './invalid-request';
import { answerPreview, isPreview } from './preview-api';
import { readJsonBody } from './read-body';
import { requestIdSchema } from './request-schema';
import { submitProvisioningRequest } from './submit-request';

/**
 * `POST /api/requests`: 202 with the request id and its status URL (Location); with
 * `"mode": "preview"` the plan instead (preview-api.ts), nothing written; the same
 * requestId again answers 200 with the same URL and runs nothing; 400 lists every
 * problem; 404 for an unknown connector; 409 for a reused requestId with other content.
 */
export function submitRequestHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const read = await readJsonBody(request);
    if ('response' in read) return read.response;
    if (isPreview(read.body)) return answerPreview(deps, request, context, read.body);
    const services = await deps.services();
    const submittedBy = submitterOf(callerOf(request), deps.keyHolder ?? FUNCTION_KEY_HOLDER);
    const outcome = await submitProvisioningRequest(
      read.body,
      services,
      deps.orchestrations(context),
      {
        source: 'http',
        now: deps.now(),
        ...(submittedBy === undefined ? {} : { submittedBy }),
      },
    );
    switch (outcome.kind) {
      case 'invalid':
        return invalidRequestAnswer(outcome);
      case 'unknown connector':
        return unknownConnector(outcome.connector);
      case 'conflict':
        return errorResponse(409, outcome.error);
      case 'started':
      case 'duplicate': {
        const statusUrl = new URL(`/api/requests/${outcome.requestId}`, request.url).toString();
        context.log(`provisioning request ${outcome.requestId}: ${outcome.kind}`);
        return {
          status: outcome.kind === 'started' ? 202 : 200,
          headers: { location: statusUrl },
          jsonBody: {
            requestId: outcome.requestId,
            statusUrl,
            duplicate: outcome.kind === 'duplicate',
            ...(outcome.kind === 'duplicate' && outcome.notices !== undefined
              ? { notices: outcome.notices }
              : {}),
          },
        };
      }
    }
  };
}

/** `GET /api/requests/{id}`: the request's status and every step's state. */
export function getRequestHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const id = request.params.id ?? '';
    if (!requestIdSchema.safeParse(id).success) {
      return problem(404, 'NOT_FOUND', `no provisioning request "${id}"`, { object: id });
    }
    const state = await deps.orchestrations(context).getStatus(requestInstanceId(id));
    if (state === undefined)
      return problem(404, 'NOT_FOUND', `no provisioning request "${id}"`, { object: id });
    const view = requestView(state);
    const explained = await withCompatibilityHints(view, await deps.services());
    return { status: 200, jsonBody: { ...explained, runtimeStatus: view.runtimeStatus } };
  };
}

/** What a caller sees of a request: the orchestration's report, whatever its runtime state. */
export function requestView(state: OrchestrationState): RequestReport & { runtimeStatus: string } {
  const input = state.input as ProvisioningRequest;
  const done = state.output as RequestReport | null | undefined;
  const running = state.customStatus as RequestReport | null | undefined;
  const base: RequestReport =
    done?.steps !== undefined
      ? done
      : running?.steps !== undefined
        ? running
        : {
            requestId: input.requestId,
            connector: input.connector,
            accountId: input.account.accountId,
            ...requestContextOf(input),
            status: 'pending',
            steps: initialSteps(input.actions),
          };
  if (state.runtimeStatus === 'Failed' || state.runtimeStatus === 'Terminated') {
    // The step that was running (or the first one, when none had started) failed with the
    // orchestration; the steps after it were skipped, as after any failed step.
    const unfinished = base.steps.find(
      (step) => step.state === 'running' || step.state === 'pending',
    );
    const failedAt = unfinished?.index ?? -1;
    const steps = base.steps.map((step) =>
      step.index === failedAt
        ? {
            ...step,
            state: 'failed' as const,
            error: {
              code: 'INTERNAL_ERROR' as const,
              message: `the orchestration ended: ${state.runtimeStatus}`,
              retryable: false,
            },
          }
        : step,
    );
    return {
      ...base,
      status: 'failed',
      runtimeStatus: state.runtimeStatus,
      steps: failedAt < 0 ? steps : skipRemaining(steps, failedAt),
    };
  }
  return { ...base, runtimeStatus: state.runtimeStatus };
}
