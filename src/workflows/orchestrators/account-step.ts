import type { OrchestrationContext } from 'durable-functions';
import type { CreateAccountResult } from '../../connectors/connector';
import type { AccountChanges, TargetAccount } from '../../domain/account';
import type { ProvisioningRequest } from '../../domain/provisioning-request';
import { ACTIVITIES } from '../names';
import { callActivity, type Step } from './activity-calls';
import {
  accountNotFound,
  failed,
  succeeded,
  type RequestState,
  type StepOutcome,
} from './step-outcome';

export type AccountAction = 'create' | 'update' | 'lock' | 'unlock' | 'setPassword' | 'delete';

export interface AccountStepInput {
  request: ProvisioningRequest;
  action: AccountAction;
  /** This step is the last one that uses the request's password: it deletes the secret. */
  lastPasswordUse: boolean;
  at: string;
}

/**
 * One account action. Lock and unlock of an account already in that state, and delete of
 * an absent account, succeed without a write and without a journal entry (only
 * effective changes are journaled; DESIGN invariants 1 and 4).
 */
export function* accountStep(
  context: OrchestrationContext,
  state: RequestState,
  input: AccountStepInput,
): Step<StepOutcome> {
  const { request, action } = input;
  const connector = request.connector;
  if (action === 'create') {
    const created = yield* callActivity<CreateAccountResult>(context, ACTIVITIES.createAccount, {
      connector,
      profile: request.account,
      ...(request.passwordSecret === undefined
        ? {}
        : { passwordSecret: request.passwordSecret, discardAfterUse: input.lastPasswordUse }),
      at: input.at,
    });
    if (!created.ok) return failed(created.error);
    state.account = created.value.account;
    return created.value.outcome === 'created'
      ? succeeded([{ change: 'account created' }])
      : succeeded([], [`account "${request.account.accountId}" existed already and was adopted`]);
  }

  const account = yield* currentAccount(context, state);
  if (!account.ok) return failed(account.error);
  if (account.value === null) {
    if (action === 'delete') {
      return succeeded([], [`account "${state.accountId}" is absent: nothing to delete`]);
    }
    return failed(accountNotFound(state));
  }
  const target = account.value;
  switch (action) {
    case 'update': {
      const changes = accountChanges(request);
      if (Object.keys(changes).length === 0) return succeeded([], ['no attribute to update']);
      const result = yield* callActivity<null>(context, ACTIVITIES.updateAccount, {
        connector,
        account: target,
        changes,
      });
      return result.ok ? succeeded([{ change: 'account updated' }]) : failed(result.error);
    }
    case 'lock':
    case 'unlock': {
      const enabled = action === 'unlock';
      if (target.enabled === enabled) {
        return succeeded([], [`account is already ${enabled ? 'unlocked' : 'locked'}`]);
      }
      const result = yield* callActivity<null>(context, ACTIVITIES.setAccountEnabled, {
        connector,
        account: target,
        enabled,
      });
      if (!result.ok) return failed(result.error);
      state.account = { ...target, enabled };
      return succeeded([{ change: enabled ? 'account unlocked' : 'account locked' }]);
    }
    case 'setPassword': {
      const result = yield* callActivity<null>(context, ACTIVITIES.setPassword, {
        connector,
        account: target,
        passwordSecret: request.passwordSecret,
        discardAfterUse: input.lastPasswordUse,
      });
      return result.ok ? succeeded([{ change: 'password set' }]) : failed(result.error);
    }
    case 'delete': {
      const result = yield* callActivity<'deleted' | 'absent'>(context, ACTIVITIES.deleteAccount, {
        connector,
        account: target,
      });
      if (!result.ok) return failed(result.error);
      state.account = null;
      return result.value === 'deleted'
        ? succeeded([{ change: 'account deleted' }])
        : succeeded([], [`account "${state.accountId}" was already gone`]);
    }
  }
}

/** The account as the steps last saw it; looked up once, on first need. */
export function* currentAccount(
  context: OrchestrationContext,
  state: RequestState,
): Step<
  { ok: true; value: TargetAccount | null } | { ok: false; error: StepOutcome['error'] & object }
> {
  if (state.account !== undefined) return { ok: true, value: state.account };
  const found = yield* callActivity<TargetAccount | null>(context, ACTIVITIES.findAccount, {
    connector: state.connector,
    accountId: state.accountId,
  });
  if (!found.ok) return { ok: false, error: found.error };
  state.account = found.value;
  return { ok: true, value: found.value };
}

function accountChanges(request: ProvisioningRequest): AccountChanges {
  const changes: AccountChanges & { accountId?: string } = { ...request.account };
  delete changes.accountId;
  return changes;
}
