import type { AccountProfile } from './account';
import { applyRecordUpdate } from './account-record';
import type { ConnectorCapabilities } from './capabilities';
import { PreviewIo, type PreviewRefusals, type ReadPerformer } from './preview-io';
import { REQUEST_REVISION, type ProvisioningAction } from './provisioning-request';
import { requestContextOf, type RequestContext } from './request-context';
import {
  initialSteps,
  requestStatus,
  skipRemaining,
  stepEnded,
  type RequestStatus,
  type StepReport,
} from './request-report';
import { requestStep, stepFlagsOf } from './request-step';
import { newAccountHandle } from './step-context';
import { driveAsync } from './step-machine';

/** What a preview is asked for: a provisioning request as validated, its password left behind. */
export interface RequestPreviewInput extends RequestContext {
  /** The caller's requestId, when the body had one: shown, never taken (the real request uses it). */
  requestId?: string;
  connector: string;
  account: AccountProfile;
  actions: ProvisioningAction[];
  /** The request carried a password: checked and discarded, never stored. */
  hasPassword: boolean;
  capabilities: ConnectorCapabilities;
}

/**
 * A request's plan: what each step would change, the notices it would give and the error it
 * would meet, as the reads show the target now. Nothing was written. `status` and the step
 * states say how the request would end.
 */
export interface RequestPlan extends RequestContext {
  mode: 'preview';
  requestId?: string;
  connector: string;
  accountId: string;
  status: Exclude<RequestStatus, 'pending' | 'running'>;
  steps: StepReport[];
  /** What the plan rests on, and what it cannot tell. */
  notices: string[];
  /** When the reads were made (ISO). */
  readAt: string;
}

/** Stands in for the password secret's name: a preview never stores the password. */
const NO_SECRET = '(preview: the password is not stored)';

/**
 * Plans a request (issue 14, Preview): the same step machines the orchestration drives, on
 * a {@link PreviewIo} that performs the reads and answers the writes without sending them.
 * Later steps see the state earlier ones would leave (a grant after a create reads the new
 * account). A step that would fail ends the plan, as it would end the request.
 *
 * @example
 * const plan = await planRequest(input, reads, Date.now());
 */
export async function planRequest(
  input: RequestPreviewInput,
  reads: ReadPerformer,
  startedAt: number,
  refusals: PreviewRefusals = {},
): Promise<RequestPlan> {
  const io = new PreviewIo(reads, startedAt, refusals);
  const { accountId } = input.account;
  const request = {
    requestId: input.requestId ?? 'preview',
    connector: input.connector,
    account: input.account,
    actions: input.actions,
    ...(input.hasPassword ? { passwordSecret: NO_SECRET } : {}),
    capabilities: input.capabilities,
    // As a request accepted now would judge; its reads stay operations of their own (the
    // preview's writes are simulated: there is no write to fold a read into).
    ...stepFlagsOf({ revision: REQUEST_REVISION }),
    foldsReadBack: false,
  };
  const handle = newAccountHandle();
  let steps = initialSteps(input.actions);
  for (const index of input.actions.keys()) {
    const outcome = await driveAsync(requestStep(request, index, handle), io);
    if (outcome.record !== undefined) {
      handle.record =
        applyRecordUpdate(handle.record ?? undefined, input.connector, accountId, outcome.record) ??
        null;
    }
    steps[index] = stepEnded(steps[index] as StepReport, outcome);
    if (!outcome.ok) {
      steps = skipRemaining(steps, index);
      break;
    }
  }
  const status = requestStatus(steps) === 'failed' ? 'failed' : 'succeeded';
  return {
    mode: 'preview',
    ...(input.requestId === undefined ? {} : { requestId: input.requestId }),
    connector: input.connector,
    accountId,
    ...requestContextOf(input),
    status,
    steps,
    notices: planNotices(input, io),
    readAt: new Date(startedAt).toISOString(),
  };
}

function planNotices(input: RequestPreviewInput, io: PreviewIo): string[] {
  const notices = [
    'a preview: nothing was written to the target, the journal or the account record',
  ];
  const windowMs = input.capabilities.visibilityWindowMs;
  if (windowMs > 0) {
    notices.push(
      `reads of connector "${input.connector}" may lag its writes by seconds (its writes are ` +
        `verified for up to ${Math.round(windowMs / 1000)} s): this plan is what the reads show ` +
        'now, and a change made moments ago may not show in it yet',
    );
  }
  if (input.hasPassword) {
    notices.push(
      'the password was checked and discarded, never stored; the target applies its own ' +
        'password rules only when the request writes it',
    );
  }
  if (io.unvouchedGroups.size > 0) {
    const groups = [...io.unvouchedGroups.values()].map((name) => `"${name}"`).join(', ');
    notices.push(
      `not in the role catalogue, so whether the service may write their members shows only ` +
        `when the request writes: ${groups} (import the catalogue to know beforehand)`,
    );
  }
  return notices;
}
