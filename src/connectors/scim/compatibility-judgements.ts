import type { ScimConnectorSettings } from './scim-settings';
import type { HttpExchange } from '../http/transport';
import type { CompatibilityCheck, PointOutcome } from './compatibility-report';

// What each step of the compatibility run shows about the six points (spec: Errors,
// compatibility points): a check holds, does not hold, or shows nothing.

export function decide(checks: CompatibilityCheck[]): PointOutcome {
  if (checks.some((c) => c.holds === false)) return 'does not fit';
  if (checks.some((c) => c.holds === true)) return 'fits';
  return 'could not tell';
}

export type Check = (
  point: number,
  holds: boolean | undefined,
  note: string,
  evidence: HttpExchange[],
) => void;

export function authHolds(settings: ScimConnectorSettings): boolean | undefined {
  return settings.auth.type === 'none' ? undefined : true;
}

export function authNote(settings: ScimConnectorSettings): string {
  return settings.auth.type === 'none'
    ? 'the connector is configured without credentials, so bearer/Basic support was not exercised'
    : `the server accepted ${settings.auth.type} credentials`;
}

/** What a failed call says about points 1, 2 and 5. */
export function judgeCallFailure(
  error: { code?: string; status?: number; message: string } | undefined,
  evidence: HttpExchange[],
  check: Check,
  settings: ScimConnectorSettings,
): void {
  if (error === undefined) return;
  if (error.code === 'TARGET_AUTH_FAILED' || error.code === 'TARGET_FORBIDDEN') {
    check(
      2,
      false,
      `the server refused the ${settings.auth.type} credentials (${error.status})`,
      evidence,
    );
  } else if (error.status === 404) {
    check(1, false, 'no SCIM Users endpoint under /scim/v2/', evidence);
  }
}

export function judgeFilter(
  error: { code?: string; message: string } | undefined,
  op: string,
  evidence: HttpExchange[],
  check: Check,
): void {
  if (error === undefined) {
    if (op === 'eq') check(4, true, `a filter with ${op} was accepted`, evidence);
    return;
  }
  if (error.code === 'SCIM_FILTER_UNSUPPORTED' || error.code === 'SCIM_REQUEST_REJECTED') {
    check(4, false, `the server refused a filter with ${op}: ${error.message}`, evidence);
  }
}

export function judgeMembership(
  error: { code?: string; message: string } | undefined,
  evidence: HttpExchange[],
  op: 'add' | 'remove',
  check: Check,
): void {
  if (error === undefined) {
    if (op === 'add')
      check(3, true, 'the account ID was accepted as a member value and read back', evidence);
    check(5, true, `PATCH ${op} on group members was applied`, evidence);
    return;
  }
  if (error.code === 'SCIM_PATCH_UNSUPPORTED') {
    check(5, false, `the server does not support PATCH on groups: ${error.message}`, evidence);
  } else if (
    op === 'add' &&
    (error.code === 'SCIM_INVALID_VALUE' || error.code === 'MEMBERSHIP_MISMATCH')
  ) {
    check(
      3,
      false,
      `the account ID was not accepted as a member value: ${error.message}`,
      evidence,
    );
  } else if (error.code === 'MEMBERSHIP_MISMATCH' || error.code === 'SCIM_INVALID_VALUE') {
    check(5, false, `PATCH ${op} on group members did not take effect: ${error.message}`, evidence);
  }
}

export function judgePatch(
  error: { code?: string; message: string } | undefined,
  evidence: HttpExchange[],
  what: string,
  check: Check,
): void {
  if (error === undefined) {
    check(5, true, `${what} was accepted`, evidence);
  } else if (error.code !== 'TARGET_UNREACHABLE' && error.code !== 'TARGET_TIMEOUT') {
    check(5, false, `${what} was refused: ${error.message}`, evidence);
  }
}
