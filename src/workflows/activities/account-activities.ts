import type { TargetAccount } from '../../domain/account';
import type { CreateAccountResult } from '../../connectors/connector';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider } from '../workflow-services';
import type {
  AccountInput,
  CreateAccountInput,
  FindAccountInput,
  SetEnabledInput,
  SetPasswordInput,
  UpdateAccountInput,
} from './activity-inputs';
import { connectorOf } from './connector-of';

/**
 * Account activities: one target call each (plus the link row), idempotent: create
 * adopts the same account, delete of an absent account is done (DESIGN invariant 4).
 */
export function accountActivities(services: ServicesProvider) {
  return {
    async findAccount(input: FindAccountInput): Promise<ActivityResult<TargetAccount | null>> {
      return runActivity('findAccount', services, async (s) => {
        const account = await connectorOf(s, input.connector).findAccount(input.accountId);
        return account ?? null;
      });
    },

    async createAccount(input: CreateAccountInput): Promise<ActivityResult<CreateAccountResult>> {
      return runActivity('createAccount', services, async (s) => {
        const connector = connectorOf(s, input.connector);
        const password =
          input.passwordSecret === undefined
            ? undefined
            : await s.secrets.get(input.passwordSecret);
        const result = await connector.createAccount(input.profile, password);
        await s.links.put({
          connector: input.connector,
          accountId: result.account.accountId,
          targetId: result.account.id,
          linkedAt: input.at,
        });
        if (input.discardAfterUse === true && input.passwordSecret !== undefined) {
          await s.secrets.delete(input.passwordSecret);
        }
        return result;
      });
    },

    async updateAccount(input: UpdateAccountInput): Promise<ActivityResult<null>> {
      return runActivity('updateAccount', services, async (s) => {
        await connectorOf(s, input.connector).updateAccount(input.account, input.changes);
        return null;
      });
    },

    async setAccountEnabled(input: SetEnabledInput): Promise<ActivityResult<null>> {
      return runActivity('setAccountEnabled', services, async (s) => {
        await connectorOf(s, input.connector).setEnabled(input.account, input.enabled);
        return null;
      });
    },

    async setPassword(input: SetPasswordInput): Promise<ActivityResult<null>> {
      return runActivity('setPassword', services, async (s) => {
        const password = await s.secrets.get(input.passwordSecret);
        await connectorOf(s, input.connector).setPassword(input.account, password);
        if (input.discardAfterUse) await s.secrets.delete(input.passwordSecret);
        return null;
      });
    },

    async deleteAccount(input: AccountInput): Promise<ActivityResult<'deleted' | 'absent'>> {
      return runActivity('deleteAccount', services, async (s) => {
        const outcome = await connectorOf(s, input.connector).deleteAccount(input.account);
        await s.links.remove(input.connector, input.account.accountId);
        return outcome;
      });
    },

    /** Deletes a transient password secret; also run when a request ends before using it. */
    async discardSecret(input: { name: string }): Promise<ActivityResult<null>> {
      return runActivity('discardSecret', services, async (s) => {
        await s.secrets.delete(input.name);
        return null;
      });
    },
  };
}
