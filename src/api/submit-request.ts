import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import { intentDayOf } from '../domain/write-intent-retention';
import { SpanStatusCode } from '@opentelemetry/api';
import { isProvisioningError, type SerializedError } from '../domain/errors';
import { REQUEST_REVISION, type ProvisioningRequest } from '../domain/provisioning-request';
import { requestContextOf } from '../domain/request-context';
import { ORCHESTRATIONS, requestInstanceId } from '../workflows/names';
import type { OrchestrationClient } from '../workflows/orchestration-client';
import type { WorkflowServices } from '../workflows/workflow-services';
import { indexEntryOf } from '../store/request-index';
import { serviceTracer, SPAN_ATTRIBUTES } from '../telemetry/tracing';
import { credentialNotices } from './credential-notices';
import type { InvalidRequest } from './invalid-request';
import {
  legacyRequestFingerprint,
  requestFingerprint,
  storedRequestFingerprint,
} from './request-fingerprint';
import { checkRequest } from './request-check';
import { actionsOf } from './request-schema';
import {
  REQUEST_ID_TAG,
  REQUEST_PASSWORD_PREFIX,
  REQUEST_PASSWORD_TTL_MS,
} from './password-sweep-timer';

export type SubmitOutcome =
  | { kind: 'started'; requestId: string }
  | {
      kind: 'duplicate';
      requestId: string;
      /** What the caller must know of this body (a password in it that was not used). */
      notices?: string[];
    }
  | InvalidRequest
  | { kind: 'unknown connector'; connector: string }
  | { kind: 'conflict'; requestId: string; error: SerializedError };

/** Where a submission came from, when, and who sent it. */
export interface SubmitContext {
  source: ProvisioningRequest['source'];
  now: Date;
  /**
   * The caller the entrance authenticated (a signed-in principal's name, "function key"),
   * recorded as `submittedBy` beside the `requestedBy` the caller writes; absent where no
   * caller is authenticated (the bulk queue, the command line).
   */
  submittedBy?: string;
  /** A drift restore's findings, checked again when its request runs (`ProvisioningRequest.restores`). */
  restores?: ProvisioningRequest['restores'];
}

/**
 * Validates a provisioning request and starts its orchestration, once per requestId: the
 * same id with the same content is a duplicate (nothing runs again), with other content a
 * conflict. A password goes into the SecretStore under a per-request name; the
 * orchestration gets only that name (DESIGN invariant 5). Shared by `POST /api/requests`
 * and the bulk queue.
 */
export async function submitProvisioningRequest(
  body: unknown,
  services: WorkflowServices,
  orchestrations: OrchestrationClient,
  context: SubmitContext,
): Promise<SubmitOutcome> {
  // The request's trace: its orchestration and every call it makes are children of this span.
  return serviceTracer().startActiveSpan('submitProvisioningRequest', async (span) => {
    try {
      span.setAttribute(SPAN_ATTRIBUTES.source, context.source);
      const outcome = await submit(body, services, orchestrations, context, (request) =>
        span.setAttributes({
          [SPAN_ATTRIBUTES.requestId]: request.requestId,
          [SPAN_ATTRIBUTES.connector]: request.connector,
          // Kept only where TELEMETRY_ACCOUNT_IDS allows (privacy-rules.ts).
          [SPAN_ATTRIBUTES.accountId]: request.accountId,
          ...(request.correlationId === undefined
            ? {}
            : { [SPAN_ATTRIBUTES.correlationId]: request.correlationId }),
        }),
      );
      span.setAttribute(SPAN_ATTRIBUTES.submission, outcome.kind);
      return outcome;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

async function submit(
  body: unknown,
  services: WorkflowServices,
  orchestrations: OrchestrationClient,
  context: SubmitContext,
  identified: (request: {
    requestId: string;
    connector: string;
    accountId: string;
    correlationId?: string;
  }) => void,
): Promise<SubmitOutcome> {
  const checked = checkRequest(body, services.registry);
  if (checked.kind !== 'valid') return (await acceptedBefore(body, orchestrations)) ?? checked;
  const { connector } = checked;
  const { password, requestId: given, mode, ...rest } = checked.request;
  if (mode === 'preview') {
    const message = 'a preview answers its caller: send it to POST /api/requests, not to the queue';
    return { kind: 'invalid', problems: [{ path: 'mode', message }] };
  }
  const requestId = given ?? randomUUID();
  identified({
    requestId,
    connector: rest.connector,
    accountId: rest.account.accountId,
    ...(rest.correlationId === undefined ? {} : { correlationId: rest.correlationId }),
  });
  const actions = actionsOf(checked.request);
  const fingerprints = {
    current: requestFingerprint({
      requestId,
      connector: rest.connector,
      context: requestContextOf(rest),
      account: rest.account,
      actions,
      hasPassword: password !== undefined,
    }),
    // Only a request sent again compares with it: hashed then.
    legacy: () => legacyRequestFingerprint(rest, requestId, password !== undefined),
  };
  const instanceId = requestInstanceId(requestId);

  const existing = await orchestrations.getStatus(instanceId);
  if (existing !== undefined) {
    return unusedPassword(compareExisting(requestId, existing.input, fingerprints), password);
  }

  const notices = await credentialNotices(connector, services.logger);
  const passwordSecret = password === undefined ? undefined : transientSecretName();
  if (passwordSecret !== undefined && password !== undefined) {
    // Tied to its request and given an expiry, so the sweep can delete it if nothing else
    // does (a crash before the start, a failed delete, a request ended without discarding it).
    await services.secrets.set(passwordSecret, password, {
      expiresOn: new Date(context.now.getTime() + REQUEST_PASSWORD_TTL_MS),
      tags: { [REQUEST_ID_TAG]: requestId },
    });
  }
  const input: ProvisioningRequest = {
    requestId,
    connector: rest.connector,
    ...requestContextOf(rest),
    ...(context.submittedBy === undefined ? {} : { submittedBy: context.submittedBy }),
    account: rest.account,
    actions,
    ...(passwordSecret === undefined ? {} : { passwordSecret }),
    capabilities: { ...connector.capabilities },
    fingerprint: fingerprints.current,
    source: context.source,
    receivedAt: context.now.toISOString(),
    intentDay: intentDayOf(context.now.toISOString()),
    revision: REQUEST_REVISION,
    ...(notices.length === 0 ? {} : { notices }),
    ...(context.restores === undefined ? {} : { restores: context.restores }),
  };
  let started: 'started' | 'exists';
  try {
    started = await orchestrations.startNew(ORCHESTRATIONS.provisioningRequest, instanceId, input);
  } catch (error) {
    // Nothing started, so nothing will delete the password: delete it here (a retried
    // submission stores it again under a new name).
    if (passwordSecret !== undefined) await services.secrets.delete(passwordSecret);
    throw error;
  }
  if (started === 'exists') {
    const winner = await orchestrations.getStatus(instanceId);
    // A start the task hub took whose answer failed (a timeout): the instance holds this very
    // input, its password secret included, which must stay for it.
    if (isDeepStrictEqual(winner?.input, JSON.parse(JSON.stringify(input)))) {
      await indexSubmitted(services, input);
      return { kind: 'started', requestId };
    }
    // Lost a race with the same requestId: the winner has its own secret; ours is dropped.
    if (passwordSecret !== undefined) await services.secrets.delete(passwordSecret);
    return unusedPassword(compareExisting(requestId, winner?.input, fingerprints), password);
  }
  await indexSubmitted(services, input);
  return { kind: 'started', requestId };
}

/**
 * Lists the request at once. The index is a view: when this write fails the request still
 * runs, and its orchestration indexes it when it ends. The bulk queue's requests, handled
 * many at once, share their transactions (`addTogether`).
 */
async function indexSubmitted(services: WorkflowServices, request: ProvisioningRequest) {
  const entry = indexEntryOf(request);
  try {
    await (request.source === 'queue'
      ? services.requests.addTogether(entry)
      : services.requests.add(entry));
  } catch (error) {
    services.logger.warn(
      `request ${request.requestId}: not listed at submission (${isProvisioningError(error) ? error.code : 'unexpected failure'}); it is listed when it ends`,
      { requestId: request.requestId, connector: request.connector },
    );
  }
}

/**
 * A body today's checks refuse, whose requestId names a request accepted before (a Mapping
 * edited since, a rule added by an upgrade): answered as the request it names, not as
 * "nothing was started", which would have its caller send it again under another id and run
 * it twice. Undefined when the body names no such request.
 */
async function acceptedBefore(
  body: unknown,
  orchestrations: OrchestrationClient,
): Promise<SubmitOutcome | undefined> {
  const requestId = (body as { requestId?: unknown } | null)?.requestId;
  if (typeof requestId !== 'string' || requestId === '') return undefined;
  if ((await orchestrations.getStatus(requestInstanceId(requestId))) === undefined) {
    return undefined;
  }
  return {
    kind: 'conflict',
    requestId,
    error: {
      code: 'REQUEST_CONFLICT',
      message:
        `requestId "${requestId}" names a request accepted before (GET /requests/${requestId}); ` +
        `this body does not pass today's checks, so it is not taken for that request`,
      retryable: false,
      object: requestId,
    },
  };
}

/**
 * The same request is a duplicate, in any spelling. One stored before fingerprints were
 * taken of the request's meaning carries the fingerprint of its spelling: sent again as it
 * was, it matches that; spelled otherwise, the meaning its input holds.
 */
function compareExisting(
  requestId: string,
  input: unknown,
  fingerprints: { current: string; legacy: () => string },
): SubmitOutcome {
  const stored = input as ProvisioningRequest | undefined;
  const known = stored?.fingerprint;
  if (
    known === fingerprints.current ||
    known === fingerprints.legacy() ||
    (stored?.account !== undefined && storedRequestFingerprint(stored) === fingerprints.current)
  ) {
    return { kind: 'duplicate', requestId };
  }
  return {
    kind: 'conflict',
    requestId,
    error: {
      code: 'REQUEST_CONFLICT',
      message: `requestId "${requestId}" was already used for a different request`,
      retryable: false,
      object: requestId,
    },
  };
}

/**
 * A duplicate whose body carries a password: the request runs (or ran) with the password it
 * was first sent with, and this one is never stored or sent. A caller that makes a new
 * password for each attempt must not hand this one out as the account's: the answer says
 * so (a password counts in the fingerprint only by its presence, as no copy of it is kept
 * to compare with once its request has used it).
 */
function unusedPassword(outcome: SubmitOutcome, password: string | undefined): SubmitOutcome {
  if (outcome.kind !== 'duplicate' || password === undefined) return outcome;
  return {
    ...outcome,
    notices: [
      `the password in this body was not used: request ${outcome.requestId} runs (or ran) with ` +
        "the password sent with it first; if this one differs, it is not the account's " +
        '(send a setPassword request under a new requestId to set it)',
    ],
  };
}

/**
 * A fresh name per submission (Key Vault: letters, digits, dashes). Names are never
 * reused: a deleted secret stays soft-deleted in a vault with purge protection.
 */
export function transientSecretName(): string {
  return `${REQUEST_PASSWORD_PREFIX}${randomUUID()}`;
}
