import type { TargetAccount } from '../domain/account';
import { ProvisioningError } from '../domain/errors';
import { describeGroup } from '../domain/group';
import { compareMemberships, type MembershipComparison } from '../domain/membership-comparison';
import {
  planMembershipChange,
  type MembershipPlan,
  type MembershipRequest,
} from '../domain/membership-plan';
import type { AppliedMembershipChange, Connector } from './connector';

/** Time as the re-read loop sees it: the real clock here, a virtual one in tests. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface MembershipChangeOutcome {
  plan: MembershipPlan;
  /** The effective changes written: what the change journal records. */
  changes: AppliedMembershipChange[];
  /** Planned changes the target found already in place at write time (not journaled). */
  alreadyInPlace: string[];
  names: Record<string, string>;
  /** How many verification reads it took (0 when every write confirmed itself). */
  verificationReads: number;
  notices: string[];
}

/**
 * Waits between verification reads: the first re-read after 1 s, then doubling up to every
 * 5 s (spec: Membership write procedure, step 5: up to 30 s in total).
 */
export function nextVerificationDelay(round: number): number {
  return Math.min(5_000, 1_000 * 2 ** round);
}

/**
 * The membership write procedure (spec: Membership write procedure, steps 1-6) as a plain
 * async loop with an injected clock: read the current memberships, plan only real
 * changes, remove, add, then read back and compare until the state matches or the
 * connector's visibility window has passed. The orchestration runs the same steps with a
 * durable timer in place of `clock.sleep`.
 *
 * @example
 * const outcome = await changeMemberships(connector, account, { grant: ['g1'], revoke: [] });
 */
export async function changeMemberships(
  connector: Connector,
  account: TargetAccount,
  request: MembershipRequest,
  clock: Clock = realClock,
): Promise<MembershipChangeOutcome> {
  const named = [...new Set([...request.grant, ...request.revoke])];
  const current = await connector.readMemberships(account, named);
  const plan = planMembershipChange(current.groupIds, request);
  const names = { ...current.names };
  const notices = [...current.notices];
  if (plan.add.length === 0 && plan.remove.length === 0) {
    return { plan, changes: [], alreadyInPlace: [], names, verificationReads: 0, notices };
  }
  const applied = await connector.applyMembershipPlan(account, plan, names);
  for (const change of applied) names[change.groupId] = change.groupName;
  const changes = applied.filter((change) => change.alreadyInPlace !== true);
  const alreadyInPlace = applied.filter((c) => c.alreadyInPlace === true).map((c) => c.groupId);

  const unconfirmed = applied.filter((change) => change.confirmedByWrite !== true);
  if (unconfirmed.length === 0) {
    return { plan, changes, alreadyInPlace, names, verificationReads: 0, notices };
  }
  const scope =
    connector.capabilities.membershipReadScope === 'named'
      ? unconfirmed.map((change) => change.groupId)
      : undefined;
  const started = clock.now();
  const window = connector.capabilities.membershipVisibilityWindowMs;
  for (let round = 0; ; round++) {
    const verification = await verifyMemberships(connector, account, plan, scope ?? []);
    Object.assign(names, verification.names);
    if (verification.comparison.matches) {
      notices.push(...verification.notices);
      return { plan, changes, alreadyInPlace, names, verificationReads: round + 1, notices };
    }
    const elapsed = clock.now() - started;
    const delay = Math.min(nextVerificationDelay(round), window - elapsed);
    if (delay <= 0) {
      throw membershipMismatch(connector.name, account, verification.comparison, names, elapsed);
    }
    await clock.sleep(delay);
  }
}

/**
 * One verification read (spec: step 4): the account's memberships compared with the
 * plan's expected state, within `scope` for connectors that can read named groups only.
 */
export async function verifyMemberships(
  connector: Connector,
  account: TargetAccount,
  plan: MembershipPlan,
  scope: readonly string[],
): Promise<{ comparison: MembershipComparison; names: Record<string, string>; notices: string[] }> {
  const read = await connector.readMemberships(account, scope);
  const comparison = compareMemberships(
    plan.expected,
    read.groupIds,
    connector.capabilities.membershipReadScope === 'named' ? scope : undefined,
  );
  return { comparison, names: read.names, notices: read.notices };
}

/** The failed step of spec step 6: names the missing and the unexpected groups. */
export function membershipMismatch(
  connectorName: string,
  account: TargetAccount,
  comparison: MembershipComparison,
  names: Record<string, string>,
  elapsedMs: number,
): ProvisioningError {
  const describe = (id: string) => describeGroup({ id, displayName: names[id] ?? id });
  const parts = [
    comparison.missing.length > 0 ? `missing: ${comparison.missing.map(describe).join(', ')}` : '',
    comparison.unexpected.length > 0
      ? `unexpected: ${comparison.unexpected.map(describe).join(', ')}`
      : '',
  ].filter((part) => part !== '');
  return new ProvisioningError(
    'MEMBERSHIP_MISMATCH',
    `connector "${connectorName}": memberships of account "${account.accountId}" still differ ` +
      `from the expected state after ${Math.round(elapsedMs / 1000)} s (${parts.join('; ')})`,
    {
      object: account.accountId,
      details: {
        missing: comparison.missing.map((id) => ({ id, name: names[id] ?? id })),
        unexpected: comparison.unexpected.map((id) => ({ id, name: names[id] ?? id })),
      },
    },
  );
}
