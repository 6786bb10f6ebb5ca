import type { Connector } from '../../src/connectors/connector';
import { directIo } from '../../src/connectors/direct-io';
import type { AccountProfile, TargetAccount } from '../../src/domain/account';
import { accountStep, type AccountAction } from '../../src/domain/account-step';
import type { MembershipAction } from '../../src/domain/membership-plan';
import { membershipStep } from '../../src/domain/membership-step';
import { newAccountHandle } from '../../src/domain/step-context';
import { driveAsync, type AsyncIo } from '../../src/domain/step-machine';
import type { StepOutcome } from '../../src/domain/step-outcome';

let runs = 0;

/**
 * Runs the service's membership procedure (the step machine production runs) for one step
 * directly on a connector: groups named by id, the account as given.
 */
export function runMembership(
  connector: Connector,
  account: TargetAccount,
  action: MembershipAction,
  groupIds: readonly string[],
  clock?: Pick<AsyncIo, 'now' | 'sleep'>,
): Promise<StepOutcome> {
  const handle = newAccountHandle();
  handle.account = account;
  handle.seen = true;
  return driveAsync(
    membershipStep({
      requestId: `test-run-${++runs}`,
      step: 0,
      connector: connector.name,
      accountId: account.accountId,
      capabilities: connector.capabilities,
      handle,
      action,
      groups: groupIds.map((id) => ({ id })),
    }),
    directIo(connector, clock),
  );
}

/** Creates an account and returns it; an account that cannot be read back fails the test. */
export async function createdAccount(
  connector: Connector,
  profile: AccountProfile,
  password?: string,
): Promise<TargetAccount> {
  const answer = await connector.createAccount(profile, password);
  if (answer.outcome === 'exists') throw new Error(`account ${profile.accountId} not readable`);
  return answer.account;
}

/**
 * Runs one account action of the service (the account step machine production runs)
 * directly on a connector, for an account the caller found.
 */
export function runAccountAction(
  connector: Connector,
  account: TargetAccount,
  action: Exclude<AccountAction, 'create' | 'setPassword'>,
  clock?: Pick<AsyncIo, 'now' | 'sleep'>,
  profile: AccountProfile = { accountId: account.accountId },
): Promise<StepOutcome> {
  const handle = newAccountHandle();
  handle.account = account;
  handle.seen = true;
  return driveAsync(
    accountStep({
      requestId: `test-run-${++runs}`,
      step: 0,
      connector: connector.name,
      accountId: account.accountId,
      capabilities: connector.capabilities,
      handle,
      action,
      profile,
      lastPasswordUse: false,
    }),
    directIo(connector, clock),
  );
}
