import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { z } from 'zod';
import { jobInstanceId, ORCHESTRATIONS } from '../workflows/names';
import type { JobInput, JobReport } from '../workflows/orchestrators/job-orchestrators';
import { connectorKind } from '../connectors/connector-kinds';
import type { ApiDeps } from './api-deps';
import { startCatalogueImport } from './catalogue-import-start';
import { problem, unknownConnector } from './http-problem';
import { readJsonBody } from './read-body';
import { describeProblems } from './request-schema';

const importOptions = z.strictObject({
  overwriteExisting: z.boolean().default(false),
  incremental: z.boolean().default(false),
});
const compatibilityOptions = z.strictObject({
  groupName: z.string().trim().min(1).max(256).optional(),
});

/** `POST /api/connectors/{name}/imports`: starts a catalogue import job; 202 with the job URL. */
export function startImportHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    const settings = services.registry.settings(name);
    if (settings === undefined) return unknownConnector(name);
    // The options are optional: an empty body (or none, chunked or not) means the defaults.
    const read = await readJsonBody(request, { optional: true });
    if ('response' in read) return read.response;
    const options = importOptions.safeParse(read.body);
    if (!options.success) {
      return problem(400, 'REQUEST_INVALID', 'invalid import options', {
        problems: describeProblems(options.error),
      });
    }
    const input: JobInput = {
      jobId: randomUUID(),
      type: connectorKind(settings).catalogueJobType,
      connector: name,
      overwriteExisting: options.data.overwriteExisting,
      incremental: options.data.incremental,
      trigger: 'api',
    };
    const start = await startCatalogueImport(services, deps.orchestrations(context), input);
    if (!start.started) {
      const { jobId, since } = start.running;
      const statusUrl = new URL(`/api/jobs/${jobId}`, request.url).toString();
      return {
        ...problem(
          409,
          'IMPORT_ALREADY_RUNNING',
          `a catalogue import of connector "${name}" is running (job ${jobId}, since ${since}): one import per connector at a time; follow it at ${statusUrl}`,
          { object: name, runningJobId: jobId, statusUrl },
        ),
        headers: { location: statusUrl },
      };
    }
    return accepted(request, context, input);
  };
}

/**
 * `POST /api/connectors/{name}/compatibility-run`: the test run of a connector whose kind has
 * one, as a job; optional body `{ "groupName" }`: the group to grant and revoke.
 */
export function startCompatibilityRunHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    const settings = services.registry.settings(name);
    if (settings === undefined) return unknownConnector(name);
    if (connectorKind(settings).compatibilityRun === undefined) {
      return problem(
        400,
        'OPERATION_NOT_SUPPORTED',
        `connector "${name}" (${settings.kind}) has no compatibility run: it is for SCIM servers`,
        { object: name },
      );
    }
    const read = await readJsonBody(request, { optional: true });
    if ('response' in read) return read.response;
    const options = compatibilityOptions.safeParse(read.body);
    if (!options.success) {
      return problem(400, 'REQUEST_INVALID', 'invalid compatibility run options', {
        problems: describeProblems(options.error),
      });
    }
    return startJob(deps, request, context, ORCHESTRATIONS.compatibilityRun, {
      jobId: randomUUID(),
      type: 'Compatibility run',
      connector: name,
      ...(options.data.groupName === undefined ? {} : { groupName: options.data.groupName }),
      trigger: 'api',
    });
  };
}

/**
 * `POST /api/connectors/{name}/reconciliations`: starts a reconciliation job ("Reconcile SCIM
 * accounts" / "Reconcile Directory accounts", issue 18); 202 with the job URL. No body (or an
 * empty object): the connector's settings say the rest.
 */
export function startReconciliationHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    const settings = services.registry.settings(name);
    if (settings === undefined) return unknownConnector(name);
    const jobType = connectorKind(settings).reconciliationJobType;
    if (jobType === undefined) {
      return problem(
        400,
        'OPERATION_NOT_SUPPORTED',
        `connector "${name}" (${settings.kind}) cannot be reconciled`,
        { object: name },
      );
    }
    const read = await readJsonBody(request, { optional: true });
    if ('response' in read) return read.response;
    const options = z.strictObject({}).safeParse(read.body);
    if (!options.success) {
      return problem(400, 'REQUEST_INVALID', 'a reconciliation takes no options', {
        problems: describeProblems(options.error),
      });
    }
    return startJob(deps, request, context, ORCHESTRATIONS.reconciliation, {
      jobId: randomUUID(),
      type: jobType,
      connector: name,
      settleSeconds: settings.reconcileSettleSeconds,
      trigger: 'api',
    });
  };
}

/** `GET /api/jobs/{id}`: the job's state, and its result once done. */
export function getJobHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const id = request.params.id ?? '';
    const state = z.uuid().safeParse(id).success
      ? await deps.orchestrations(context).getStatus(jobInstanceId(id))
      : undefined;
    if (state === undefined) return problem(404, 'NOT_FOUND', `no job "${id}"`, { object: id });
    const input = state.input as JobInput;
    const report = (state.output as JobReport | null) ??
      (state.customStatus as JobReport | null) ?? {
        jobId: input.jobId,
        type: input.type,
        connector: input.connector,
        trigger: input.trigger,
        status: 'running',
        startedAt: state.createdTime,
      };
    const failed = state.runtimeStatus === 'Failed' || state.runtimeStatus === 'Terminated';
    const progress =
      report.status !== 'running'
        ? undefined
        : state.name === ORCHESTRATIONS.catalogueImport
          ? await (await deps.services()).catalogue.importProgress(input.jobId)
          : state.name === ORCHESTRATIONS.reconciliation
            ? ((report as { progress?: unknown }).progress ??
              (await (await deps.services()).reconciliation.progress(input.jobId)))
            : undefined;
    return {
      status: 200,
      jsonBody: {
        ...report,
        ...(failed ? { status: 'failed' } : {}),
        ...(progress === undefined ? {} : { progress }),
        runtimeStatus: state.runtimeStatus,
      },
    };
  };
}

async function startJob(
  deps: ApiDeps,
  request: HttpRequest,
  context: InvocationContext,
  orchestration: string,
  input: JobInput,
): Promise<HttpResponseInit> {
  await deps.orchestrations(context).startNew(orchestration, jobInstanceId(input.jobId), input);
  return accepted(request, context, input);
}

function accepted(
  request: HttpRequest,
  context: InvocationContext,
  input: JobInput,
): HttpResponseInit {
  const statusUrl = new URL(`/api/jobs/${input.jobId}`, request.url).toString();
  context.log(`${input.type} job ${input.jobId} started for connector ${input.connector}`);
  return {
    status: 202,
    headers: { location: statusUrl },
    jsonBody: { jobId: input.jobId, type: input.type, statusUrl },
  };
}
