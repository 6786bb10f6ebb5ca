import { createHash } from 'node:crypto';
import type { AccountProfile } from '../domain/account';
import type { ProvisioningAction, ProvisioningRequest } from '../domain/provisioning-request';
import type { RequestContext } from '../domain/request-context';

/** What makes two submissions under one requestId the same request. */
export interface FingerprintedRequest {
  requestId: string;
  connector: string;
  context: Pick<RequestContext, 'requestedBy' | 'reason' | 'correlationId'>;
  account: AccountProfile;
  /** The actions as the service runs them (`actionsOf`): every group a selector object. */
  actions: readonly ProvisioningAction[];
  hasPassword: boolean;
}

/**
 * The hash a reused requestId must match: of the request's meaning, not its spelling. A
 * group written `"Sales"` or `{ "name": "Sales" }`, attributes in another order and the
 * groups of one action in another order give the same fingerprint. The password counts
 * only by its presence (its value never leaves the secret store's way); who submitted it
 * does not count (the same request sent again by another caller is still the same request).
 *
 * @example
 * requestFingerprint({ requestId: 'r1', connector: 'hr', context: {}, account: { accountId: 'ada' }, actions: [{ type: 'create' }], hasPassword: false });
 */
export function requestFingerprint(request: FingerprintedRequest): string {
  const actions = request.actions.map((action) =>
    'groups' in action
      ? { type: action.type, groups: action.groups.map(canonicalJson).sort() }
      : { type: action.type },
  );
  return createHash('sha256')
    .update(
      canonicalJson({
        requestId: request.requestId,
        connector: request.connector,
        context: {
          requestedBy: request.context.requestedBy,
          reason: request.context.reason,
          correlationId: request.context.correlationId,
        },
        account: request.account,
        actions,
        password: request.hasPassword,
      }),
    )
    .digest('hex');
}

/**
 * The fingerprint of a request as its orchestration input holds it (whatever fingerprint it
 * was stored with): a request accepted before `requestFingerprint` is recognised in any
 * spelling too.
 */
export function storedRequestFingerprint(input: ProvisioningRequest): string {
  return requestFingerprint({
    requestId: input.requestId,
    connector: input.connector,
    context: input,
    account: input.account,
    actions: input.actions,
    hasPassword: input.passwordSecret !== undefined,
  });
}

/**
 * The fingerprint requests were stored under before `requestFingerprint`: of the body as
 * the caller spelled it (the parsed body without its requestId, mode and password). Kept so
 * that a request accepted then and sent again exactly as it was is still the same request.
 */
export function legacyRequestFingerprint(
  rest: Record<string, unknown>,
  requestId: string,
  hasPassword: boolean,
): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...rest, requestId, password: hasPassword }))
    .digest('hex');
}

/** JSON with every object's keys in sorted order; undefined members left out, as JSON does. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
