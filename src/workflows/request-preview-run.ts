import type { PreviewRefusals, ReadOp, ReadPerformer } from '../domain/preview-io';
import { planRequest, type RequestPlan, type RequestPreviewInput } from '../domain/request-preview';
import { accountActivities } from './activities/account-activities';
import { membershipActivities } from './activities/membership-activities';
import { errorFromActivityFailure, type ActivityResult } from './activity-result';
import type { ServicesProvider } from './workflow-services';

/**
 * The reads of a preview, done by the very activities a request runs (the record, the role
 * catalogue, the target), in this process. No write activity is reachable from here.
 * An aborted signal stops the preview before its next read.
 */
export function previewReads(services: ServicesProvider, signal?: AbortSignal): ReadPerformer {
  const account = accountActivities(services);
  const membership = membershipActivities(services);
  const reads: Record<ReadOp, (input: never) => Promise<ActivityResult<unknown>>> = {
    findAccount: (input) => account.findAccount(input),
    readAccount: (input) => account.readAccount(input),
    lookUpRoles: (input) => membership.lookUpRoles(input),
    resolveGroup: (input) => membership.resolveGroup(input),
    listManagedGroups: (input) => membership.listManagedGroups(input),
    readMemberships: (input) => membership.readMemberships(input),
  };
  return async (op, input) => {
    signal?.throwIfAborted();
    try {
      return await reads[op](input as never);
    } catch (error) {
      // A retryable failure the transport could not overcome: the plan shows it.
      return { ok: false, error: errorFromActivityFailure(error, op) };
    }
  };
}

/**
 * Plans a request in this process (issue 14, Preview): its reads now, its writes simulated;
 * a notice when the connector is quarantined (a request sent now would be held).
 *
 * @example
 * const plan = await runRequestPreview(services, input, Date.now());
 */
export async function runRequestPreview(
  services: ServicesProvider,
  input: RequestPreviewInput,
  at: number,
  signal?: AbortSignal,
): Promise<RequestPlan> {
  const plan = await planRequest(
    input,
    previewReads(services, signal),
    at,
    await previewRefusals(services, input),
  );
  const quarantine = await (await services()).quarantine.get(input.connector);
  if (quarantine?.quarantined === true) {
    plan.notices.push(
      `connector "${input.connector}" is quarantined since ${quarantine.since} ` +
        `(${quarantine.reason.code}): a request sent now is held until it is released`,
    );
  }
  return plan;
}

/**
 * What the connector declares it would refuse before sending, for the writes the request
 * asks for: the same question its write asks (`Connector.passwordRefusal`).
 */
async function previewRefusals(
  services: ServicesProvider,
  input: RequestPreviewInput,
): Promise<PreviewRefusals> {
  if (!input.actions.some((action) => action.type === 'setPassword')) return {};
  const connector = (await services()).registry.get(input.connector);
  const refusal = await connector?.passwordRefusal?.(input.account.accountId);
  return refusal === undefined ? {} : { setPassword: refusal.toJSON() };
}
