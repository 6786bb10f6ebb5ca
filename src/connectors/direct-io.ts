import { isProvisioningError, ProvisioningError } from '../domain/errors';
import type { GroupSelector } from '../domain/provisioning-request';
import type { AsyncIo, IoResult } from '../domain/step-machine';
import { STEP_OPS, type StepOp } from '../domain/step-ops';
import type { Connector } from './connector';

type Handler = (input: never) => Promise<unknown>;

/**
 * The step machines' operations performed directly on one connector, without the service's
 * stores (no record, no journal, no catalogue): for runs that provision nothing, such as
 * the compatibility run's test account. Provisioning runs the same machines on the
 * activities (src/workflows/activities), which add the stores.
 *
 * @example
 * const outcome = await driveAsync(membershipStep(input), directIo(connector));
 */
export function directIo(
  connector: Connector,
  clock: Pick<AsyncIo, 'now' | 'sleep'> = realClock,
): AsyncIo {
  const handlers: Record<StepOp, Handler> = {
    [STEP_OPS.findAccount]: async (input: { accountId: string }) => ({
      account: (await connector.findAccount(input.accountId)) ?? null,
      record: null,
    }),
    [STEP_OPS.readAccount]: async (input: { account: Parameters<Connector['readAccount']>[0] }) =>
      (await connector.readAccount(input.account)) ?? null,
    [STEP_OPS.createAccount]: (input: { profile: Parameters<Connector['createAccount']>[0] }) =>
      connector.createAccount(input.profile),
    [STEP_OPS.updateAccount]: async (input: Parameters<typeof update>[1]) =>
      update(connector, input),
    [STEP_OPS.setAccountEnabled]: (input: {
      account: Parameters<Connector['setEnabled']>[0];
      enabled: boolean;
    }) => connector.setEnabled(input.account, input.enabled),
    [STEP_OPS.setPassword]: () => {
      throw new ProvisioningError(
        'OPERATION_NOT_SUPPORTED',
        'a password travels through the secret store: set it through a provisioning request',
      );
    },
    [STEP_OPS.deleteAccount]: (input: { account: Parameters<Connector['deleteAccount']>[0] }) =>
      connector.deleteAccount(input.account),
    [STEP_OPS.lookUpRoles]: async (input: { selectors: GroupSelector[] }) =>
      input.selectors.map((selector) =>
        'id' in selector ? { id: selector.id, displayName: selector.id } : null,
      ),
    [STEP_OPS.resolveGroup]: async (input: { selector: GroupSelector }) => {
      const { selector } = input;
      if ('id' in selector) return { id: selector.id, displayName: selector.id };
      const group = await connector.findGroup(selector.name);
      if (group === undefined) {
        throw new ProvisioningError(
          'GROUP_NOT_FOUND',
          `group "${selector.name}" not found on connector "${connector.name}"`,
          { object: selector.name },
        );
      }
      return group;
    },
    [STEP_OPS.listManagedGroups]: async () => [],
    [STEP_OPS.readMemberships]: (input: {
      account: Parameters<Connector['readMemberships']>[0];
      groupIds: string[];
    }) => connector.readMemberships(input.account, input.groupIds),
    [STEP_OPS.writeMemberships]: (input: {
      account: Parameters<Connector['writeMemberships']>[0];
      add: string[];
      remove: string[];
      names: Record<string, string>;
      writable: string[];
    }) => connector.writeMemberships(input.account, input, input.names, input.writable),
  };
  return {
    async perform(op, input): Promise<IoResult<unknown>> {
      try {
        return { ok: true, value: await handlers[op](input as never) };
      } catch (error) {
        if (isProvisioningError(error)) return { ok: false, error: error.toJSON() };
        throw error;
      }
    },
    now: clock.now,
    sleep: clock.sleep,
  };
}

async function update(
  connector: Connector,
  input: {
    account: Parameters<Connector['updateAccount']>[0];
    changes: Parameters<Connector['updateAccount']>[1];
  },
): Promise<null> {
  await connector.updateAccount(input.account, input.changes);
  return null;
}

const realClock: Pick<AsyncIo, 'now' | 'sleep'> = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
