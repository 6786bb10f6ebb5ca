import type { AccountProfile, TargetAccount } from '../domain/account';
import { accountStep, type AccountAction } from '../domain/account-step';
import { isProvisioningError, ProvisioningError } from '../domain/errors';
import type { MembershipAction } from '../domain/membership-plan';
import { membershipStep } from '../domain/membership-step';
import type { GroupSelector } from '../domain/provisioning-request';
import { newAccountHandle, type StepContext } from '../domain/step-context';
import { driveAsync, type AsyncIo, type IoResult } from '../domain/step-machine';
import { STEP_OPS, type StepOp } from '../domain/step-ops';
import type { StepOutcome } from '../domain/step-outcome';
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
    [STEP_OPS.findAccount]: async (input: { accountId: string; provesAbsence?: true }) => {
      const account = (await connector.findAccount(input.accountId)) ?? null;
      if (account !== null || input.provesAbsence !== true) return { account, record: null };
      const absence = await connector.proveAbsent(input.accountId);
      return absence.outcome === 'found'
        ? { account: absence.account, record: null }
        : { account: null, record: null, absence };
    },
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
    // No store here: no intent was claimed.
    [STEP_OPS.withdrawIntent]: async () => null,
    [STEP_OPS.readMemberships]: (input: {
      account: Parameters<Connector['readMemberships']>[0];
      groupIds: string[];
      confirmAbsent?: string[];
      absenceVouchedBefore?: true;
    }) =>
      connector.readMemberships(
        input.account,
        input.groupIds,
        input.confirmAbsent,
        input.absenceVouchedBefore === true,
      ),
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

type Clock = Pick<AsyncIo, 'now' | 'sleep'>;

let runs = 0;

/** A one-step context for an account the caller has found. */
function contextFor(connector: Connector, account: TargetAccount): StepContext {
  const handle = newAccountHandle();
  handle.account = account;
  handle.seen = true;
  return {
    requestId: `direct-${connector.name}-${++runs}`,
    step: 0,
    connector: connector.name,
    accountId: account.accountId,
    capabilities: connector.capabilities,
    handle,
  };
}

/**
 * Grants, revokes or sets groups (named by id) through the service's membership procedure,
 * directly on a connector: the same step machine production runs, without journal or record.
 *
 * @example
 * const outcome = await runMembershipStep(connector, account, 'grant', [groupId]);
 */
export function runMembershipStep(
  connector: Connector,
  account: TargetAccount,
  action: MembershipAction,
  groupIds: readonly string[],
  clock?: Clock,
): Promise<StepOutcome> {
  return driveAsync(
    membershipStep({
      ...contextFor(connector, account),
      action,
      groups: groupIds.map((id) => ({ id })),
    }),
    directIo(connector, clock),
  );
}

/** One account action (no create, no password) through the service's account procedure, directly on a connector. */
export function runAccountStep(
  connector: Connector,
  account: TargetAccount,
  action: Exclude<AccountAction, 'create' | 'setPassword'>,
  clock?: Clock,
  profile: AccountProfile = { accountId: account.accountId },
): Promise<StepOutcome> {
  return driveAsync(
    accountStep({ ...contextFor(connector, account), action, profile, lastPasswordUse: false }),
    directIo(connector, clock),
  );
}
