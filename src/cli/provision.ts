import { withCompatibilityHints } from '../api/compatibility-hints';
import { checkPreview } from '../api/preview-api';
import { submitProvisioningRequest } from '../api/submit-request';
import type { Connector } from '../connectors/connector';
import { ProvisioningError } from '../domain/errors';
import type { GroupRef } from '../domain/group';
import type { RequestContext } from '../domain/request-context';
import type { RequestPlan } from '../domain/request-preview';
import type { RequestReport, StepReport } from '../domain/request-report';
import { runRequestPreview } from '../workflows/request-preview-run';
import { requestInstanceId } from '../workflows/names';
import type { CliContext } from './cli-context';

/** What `provision` asks for: the actions in this order. */
export interface ProvisionRequest {
  connector: string;
  profile: { accountId: string; displayName?: string; email?: string };
  create?: boolean;
  /** Group display names. */
  grant?: string[];
  revoke?: string[];
  lock?: boolean;
  unlock?: boolean;
  delete?: boolean;
  /** Who asks, why, and the governance workflow's case: into the report and the journal. */
  context?: RequestContext;
}

/** How long the CLI waits for a request (a lease held by another request may take 10 minutes). */
const WAIT_MS = 15 * 60_000;

/**
 * Runs a provisioning request through the service itself, exactly as `POST /api/requests`
 * does: the account's lease, the step machines, the journal and the service's record of the
 * account. Prints each step's state, changes and notices; returns the report.
 */
export async function provision(
  ctx: CliContext,
  request: ProvisionRequest,
  print: (line: string) => void,
): Promise<RequestReport> {
  const service = await ctx.service();
  const submitted = await submitProvisioningRequest(
    requestBody(request),
    service.services,
    service.driver,
    { source: 'cli', now: new Date() },
  );
  if (submitted.kind === 'invalid') throw invalidRequest(submitted.problems);
  if (submitted.kind === 'unknown connector') throw unknownConnector(submitted.connector);
  if (submitted.kind === 'conflict') {
    throw new ProvisioningError(submitted.error.code, submitted.error.message);
  }
  const state = await service.driver.waitFor(requestInstanceId(submitted.requestId), WAIT_MS);
  // As the API shows it: a failure is read against the connector's last compatibility run.
  const report = await withCompatibilityHints(state.output as RequestReport, service.services);
  for (const line of describeReport(report)) print(line);
  return report;
}

/**
 * The plan of a request, as `POST /api/requests` with `"mode": "preview"` gives it: reads
 * made, writes simulated, nothing written (issue 14). Prints the plan; returns it.
 */
export async function previewProvision(
  ctx: CliContext,
  request: ProvisionRequest,
  print: (line: string) => void,
): Promise<RequestPlan> {
  const service = await ctx.service();
  const checked = checkPreview(requestBody(request), service.services.registry);
  if (checked.kind === 'invalid') throw invalidRequest(checked.problems);
  if (checked.kind === 'unknown connector') throw unknownConnector(checked.connector);
  const plan = await runRequestPreview(
    () => Promise.resolve(service.services),
    checked.input,
    Date.now(),
  );
  print(`  preview: the request would end ${plan.status} (nothing was written)`);
  for (const line of describeSteps(plan.steps)) print(line);
  for (const notice of plan.notices) print(`  notice: ${notice}`);
  return plan;
}

/** What `provision` asks for, as the body of `POST /api/requests`. */
function requestBody(request: ProvisionRequest): Record<string, unknown> {
  const actions = [
    ...(request.create === true ? [{ type: 'create' }] : []),
    ...((request.grant ?? []).length > 0 ? [{ type: 'grant', groups: request.grant }] : []),
    ...((request.revoke ?? []).length > 0 ? [{ type: 'revoke', groups: request.revoke }] : []),
    ...(request.lock === true ? [{ type: 'lock' }] : []),
    ...(request.unlock === true ? [{ type: 'unlock' }] : []),
    ...(request.delete === true ? [{ type: 'delete' }] : []),
  ];
  return { connector: request.connector, ...request.context, account: request.profile, actions };
}

function invalidRequest(problems: { path: string; message: string }[]): ProvisioningError {
  return new ProvisioningError(
    'REQUEST_INVALID',
    `the request is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
  );
}

function unknownConnector(name: string): ProvisioningError {
  return new ProvisioningError('CONNECTOR_NOT_FOUND', `unknown connector "${name}"`, {
    object: name,
  });
}

/** A report as the CLI prints it: one line per step, then its changes, notices and error. */
export function describeReport(report: RequestReport): string[] {
  const lines = [`  request ${report.requestId}: ${report.status}`];
  const context = [
    report.correlationId === undefined ? undefined : `case ${report.correlationId}`,
    report.requestedBy === undefined ? undefined : `requested by ${report.requestedBy}`,
    report.reason === undefined ? undefined : `reason: ${report.reason}`,
  ].filter((part) => part !== undefined);
  if (context.length > 0) lines.push(`  ${context.join(', ')}`);
  return [...lines, ...describeSteps(report.steps)];
}

/** One line per step, then its changes, notices and error. */
function describeSteps(steps: readonly StepReport[]): string[] {
  const lines: string[] = [];
  for (const step of steps) {
    const groups = step.groups === undefined ? '' : ` ${step.groups.join(', ')}`;
    lines.push(`  ${`${step.action}${groups}`.padEnd(28)} ${step.state}`);
    for (const change of step.changes) {
      lines.push(
        `      ${change.change}${change.groupName === undefined ? '' : ` ${change.groupName}`}`,
      );
    }
    for (const notice of step.notices) lines.push(`      notice: ${notice}`);
    if (step.error !== undefined) lines.push(`      ${step.error.code}: ${step.error.message}`);
  }
  return lines;
}

/** The group with this display name, or GROUP_NOT_FOUND naming it and the connector. */
export async function findGroupByName(connector: Connector, name: string): Promise<GroupRef> {
  const group = await connector.findGroup(name);
  if (group === undefined) {
    throw new ProvisioningError(
      'GROUP_NOT_FOUND',
      `group "${name}" not found on connector "${connector.name}"`,
      { object: name },
    );
  }
  return group;
}
