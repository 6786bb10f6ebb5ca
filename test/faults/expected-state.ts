import type { Action, PlannedRequest } from './workload';
import { GROUPS } from './workload';

/** An account as the requests that succeeded say it must be (the writable groups only). */
export interface AccountState {
  exists: boolean;
  enabled: boolean;
  groups: string[];
  displayName?: string;
  /** The last password a succeeded request set, where the target lets it be read (Graph). */
  password?: string;
}

export const ABSENT: AccountState = { exists: false, enabled: false, groups: [] };

/**
 * The state after a request that succeeded: each action in order (the connector's managed
 * groups are the seeded writable groups, so setMemberships sets exactly those).
 */
export function applyRequest(state: AccountState, request: PlannedRequest): AccountState {
  let next = { ...state, groups: [...state.groups] };
  for (const action of request.actions) next = applyAction(next, action, request);
  return next;
}

function applyAction(state: AccountState, action: Action, request: PlannedRequest): AccountState {
  switch (action.type) {
    case 'create':
      return {
        exists: true,
        enabled: true,
        groups: [],
        ...(request.displayName === undefined ? {} : { displayName: request.displayName }),
        ...(request.password === undefined ? {} : { password: request.password }),
      };
    case 'update':
      return request.displayName === undefined
        ? state
        : { ...state, displayName: request.displayName };
    case 'lock':
      return { ...state, enabled: false };
    case 'unlock':
      return { ...state, enabled: true };
    case 'setPassword':
      return request.password === undefined ? state : { ...state, password: request.password };
    case 'delete':
      return ABSENT;
    case 'grant':
      return { ...state, groups: sorted([...state.groups, ...action.groups]) };
    case 'revoke':
      return { ...state, groups: state.groups.filter((group) => !action.groups.includes(group)) };
    case 'setMemberships':
      return {
        ...state,
        groups: sorted([
          ...state.groups.filter((group) => !GROUPS.includes(group)),
          ...action.groups,
        ]),
      };
  }
}

/** Where the truth differs from the expected state: one word per aspect. */
export function differences(expected: AccountState, truth: AccountState): string[] {
  const found: string[] = [];
  if (expected.exists !== truth.exists) found.push(expected.exists ? 'absent' : 'still exists');
  if (!expected.exists || !truth.exists) return found;
  if (expected.enabled !== truth.enabled) found.push(expected.enabled ? 'locked' : 'not locked');
  const missing = expected.groups.filter((group) => !truth.groups.includes(group));
  const unexpected = truth.groups.filter((group) => !expected.groups.includes(group));
  if (missing.length > 0) found.push(`missing ${missing.join(', ')}`);
  if (unexpected.length > 0) found.push(`unexpected ${unexpected.join(', ')}`);
  if (expected.displayName !== undefined && expected.displayName !== truth.displayName) {
    found.push(`displayName ${truth.displayName ?? '(none)'}`);
  }
  if (
    expected.password !== undefined &&
    truth.password !== undefined &&
    expected.password !== truth.password
  ) {
    found.push('password');
  }
  return found;
}

function sorted(groups: string[]): string[] {
  return [...new Set(groups)].sort();
}
