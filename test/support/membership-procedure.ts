import type { Connector } from '../../src/connectors/connector';
import type { AccountProfile, TargetAccount } from '../../src/domain/account';

export {
  runAccountStep as runAccountAction,
  runMembershipStep as runMembership,
} from '../../src/connectors/direct-io';

/** Creates an account and returns it; an account that cannot be read back fails the test. */
export async function createdAccount(
  connector: Connector,
  profile: AccountProfile,
  password?: string,
): Promise<TargetAccount> {
  const answer = await connector.createAccount(profile, password);
  if (!('account' in answer)) throw new Error(`account ${profile.accountId} not readable`);
  return answer.account;
}
