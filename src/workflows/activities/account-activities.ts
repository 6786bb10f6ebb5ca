import type { TargetAccount } from '../../domain/account';
import { judgeAdoption } from '../../domain/account-adoption';
import { isLinked, wasDeleted, type AccountRecord } from '../../domain/account-record';
import { deleteWorthReadingBack } from '../../domain/account-step';
import type { Connector } from '../../connectors/connector';
import { isProvisioningError } from '../../domain/errors';
import { accountWriteChangedNothing } from '../../domain/lost-answer';
import type {
  CreateAccountAnswer,
  DeleteAccountAnswer,
  PasswordKept,
  SetEnabledAnswer,
} from '../../domain/target-answers';
import type {
  AccountLookup,
  AccountWriteReadBack,
  IntentInput,
  ReadsBackInput,
} from '../../domain/step-ops';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider, WorkflowServices } from '../workflow-services';
import type {
  AccountInput,
  CreateAccountInput,
  DeleteAccountInput,
  FindAccountInput,
  SetEnabledInput,
  SetPasswordInput,
  UpdateAccountInput,
} from './activity-inputs';
import { underIntent, withdrawClaim } from './claimed-intent';
import { refuseNameMatch } from './account-lookup';
import { connectorOf } from './connector-of';
import { underLease, type UnderLease } from './lease-deadline';
import { readAfterWrite } from './read-after-write';

/** An account write's answer; with `readBack` in its input, with the read of the account after. */
type ReadBackAnswer<T> = T | AccountWriteReadBack<T>;

/** The write's answer, and the account read once it was answered when the step asked. */
async function withReadBack<T>(
  s: WorkflowServices,
  activity: string,
  input: AccountInput & ReadsBackInput,
  answer: T,
  worthReading = true,
): Promise<ReadBackAnswer<T>> {
  if (input.readBack !== true) return answer;
  if (!worthReading) return { answer };
  const readBack = await readAfterWrite(
    s,
    activity,
    async () => (await connectorOf(s, input.connector).readAccount(input.account)) ?? null,
  );
  return { answer, readBack };
}

/**
 * Account activities: one target call each (a lookup: the record and one or two reads).
 * Idempotent (DESIGN invariant 4). A write whose retry must tell its own earlier attempt
 * from someone else's change records its intent first (DESIGN invariant 1).
 */
export function accountActivities(services: ServicesProvider) {
  return {
    /**
     * The service's record of the account and the account as a read shows it: by the
     * target's id when there is a record, else (or when that read finds nothing) by its
     * account ID.
     */
    async findAccount(input: FindAccountInput): Promise<ActivityResult<AccountLookup>> {
      return runActivity('findAccount', services, async (s) => {
        const connector = connectorOf(s, input.connector);
        const stored =
          input.stored === undefined
            ? await s.accounts.get(input.connector, input.accountId)
            : input.stored;
        const record = isLinked(stored) ? stored : null;
        let account: TargetAccount | undefined;
        if (record !== null) {
          account = await connector.readAccount({
            id: record.targetId,
            accountId: input.accountId,
            enabled: record.enabled ?? true,
          });
        }
        account ??= await connector.findAccount(input.accountId);
        // A lagging read may still show an object the service deleted: it is not the account.
        if (account !== undefined && deletedBefore(s, connector, stored, account)) {
          account = undefined;
        }
        // The linked object is not shown, another holds the account ID: never taken for it.
        if (account !== undefined && record !== null && account.id !== record.targetId) {
          refuseNameMatch(s, connector, input, record, account);
          account = undefined;
        }
        if (account === undefined && record === null && input.provesAbsence === true) {
          const absence = await connector.proveAbsent(input.accountId);
          if (absence.outcome !== 'found') return { account: null, record, absence };
          if (!deletedBefore(s, connector, stored, absence.account)) {
            return { account: absence.account, record };
          }
          const evidence = `the only account of that name is one this service deleted`;
          return { account: null, record, absence: { outcome: 'absent', evidence } };
        }
        return { account: account ?? null, record };
      });
    },

    /** The account by the target's id, as a read shows it now; null when the read finds nothing. */
    async readAccount(input: AccountInput): Promise<ActivityResult<TargetAccount | null>> {
      return runActivity('readAccount', services, async (s) => {
        const account = await connectorOf(s, input.connector).readAccount(input.account);
        return account ?? null;
      });
    },

    async createAccount(
      input: CreateAccountInput & UnderLease,
    ): Promise<ActivityResult<CreateAccountAnswer & PasswordKept>> {
      return runActivity('createAccount', services, (s) => createUnderLease(s, input));
    },

    async updateAccount(
      input: UpdateAccountInput & UnderLease,
    ): Promise<ActivityResult<ReadBackAnswer<null>>> {
      return runActivity('updateAccount', services, async (s) => {
        await underLease(s, input, input.account.accountId, () =>
          connectorOf(s, input.connector).updateAccount(input.account, input.changes),
        );
        return withReadBack(s, 'updateAccount', input, null);
      });
    },

    async setAccountEnabled(
      input: SetEnabledInput & UnderLease,
    ): Promise<ActivityResult<ReadBackAnswer<SetEnabledAnswer>>> {
      return runActivity('setAccountEnabled', services, async (s) => {
        const answer = await underLease(s, input, input.account.accountId, () =>
          connectorOf(s, input.connector).setEnabled(input.account, input.enabled),
        );
        return withReadBack(s, 'setAccountEnabled', input, answer);
      });
    },

    async setPassword(
      input: SetPasswordInput & UnderLease,
    ): Promise<ActivityResult<PasswordKept | null>> {
      return runActivity('setPassword', services, (s) =>
        underLease(s, input, input.account.accountId, () =>
          underIntent(
            s,
            input,
            accountWriteChangedNothing,
            async (tried) => {
              const password = await passwordOf(
                s,
                input.passwordSecret,
                tried && input.discardAfterUse,
              );
              // An earlier run set the password and then deleted the secret: done.
              if (password === undefined) return false;
              await connectorOf(s, input.connector).setPassword(input.account, password);
              return true;
            },
            async (sent): Promise<PasswordKept | null> => {
              if (!sent || !input.discardAfterUse) return null;
              const kept = await discardAfterUse(s, input.passwordSecret);
              return kept.passwordKept === true ? kept : null;
            },
          ),
        ),
      );
    },

    async deleteAccount(
      input: DeleteAccountInput & UnderLease,
    ): Promise<ActivityResult<ReadBackAnswer<DeleteAccountAnswer>>> {
      return runActivity('deleteAccount', services, async (s) => {
        const answer = await underLease(s, input, input.account.accountId, () =>
          underIntent(
            s,
            input,
            accountWriteChangedNothing,
            () => connectorOf(s, input.connector).deleteAccount(input.account),
            (answer, tried) => ({ ...answer, maybeOurs: answer.maybeOurs || tried }),
          ),
        );
        return withReadBack(s, 'deleteAccount', input, answer, deleteWorthReadingBack(answer));
      });
    },

    /**
     * Withdraws a write's claimed intent once a read showed the write was not applied: the
     * write's next run then tells its own attempt from someone else's change again (DESIGN
     * invariant 1). A withdrawal that fails leaves the claim, as `underIntent`'s do.
     */
    async withdrawIntent(input: IntentInput): Promise<ActivityResult<null>> {
      return runActivity('withdrawIntent', services, async (s) => {
        await withdrawClaim(s, input);
        return null;
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

/** What the create's answer tells the step: an existing account is this service's only on evidence. */
async function judgeCreateAnswer(
  s: WorkflowServices,
  input: CreateAccountInput,
  answer: CreateAccountAnswer,
  tried: boolean,
): Promise<CreateAccountAnswer> {
  const maybeOurs = answer.maybeOurs || tried;
  if (answer.outcome !== 'adopted') return { ...answer, maybeOurs };
  // The account ID is taken, but a lagging read may show the object deleted before.
  const stored =
    input.stored === undefined
      ? await s.accounts.get(input.connector, input.profile.accountId)
      : input.stored;
  if (deletedBefore(s, connectorOf(s, input.connector), stored, answer.account)) {
    return { outcome: 'exists', maybeOurs };
  }
  // Taken by name only is not the same account: the evidence decides (revision 4).
  return input.provesOwnCreate === true
    ? judgeAdoption({ ...answer, maybeOurs }, stored)
    : { ...answer, maybeOurs };
}

/**
 * Deletes the password's secret once the write that used it last is answered. A secret store
 * that refuses the delete (a Key Vault outage, a missing delete permission) does not undo the
 * write, whose answer stands: the write's answer says the secret was kept (`passwordKept`),
 * and the request deletes it again at its end and says so if that fails too.
 */
async function discardAfterUse(s: WorkflowServices, name: string): Promise<PasswordKept> {
  try {
    await s.secrets.delete(name);
    return {};
  } catch (error) {
    s.logger.warn(
      `the password's secret "${name}" could not be deleted after use (${isProvisioningError(error) ? error.code : 'error'}): the request deletes it at its end`,
    );
    return { passwordKept: true };
  }
}

/**
 * The create of the createAccount activity, under the request's lease: its intent claimed
 * first (DESIGN invariant 1), then the write, and an account the create meets judged. Also
 * sent by a request's first look at the connector, once it took the lease (revision 5).
 */
export function createUnderLease(
  s: WorkflowServices,
  input: CreateAccountInput & UnderLease,
): Promise<CreateAccountAnswer & PasswordKept> {
  return underLease(s, input, input.profile.accountId, () =>
    underIntent(
      s,
      input,
      accountWriteChangedNothing,
      async (tried) => {
        const connector = connectorOf(s, input.connector);
        const password =
          input.passwordSecret === undefined
            ? undefined
            : await passwordOf(s, input.passwordSecret, tried && input.discardAfterUse === true);
        return connector.createAccount(input.profile, password);
      },
      async (answer, tried): Promise<CreateAccountAnswer & PasswordKept> => {
        const kept =
          input.discardAfterUse === true && input.passwordSecret !== undefined
            ? await discardAfterUse(s, input.passwordSecret)
            : {};
        return { ...(await judgeCreateAnswer(s, input, answer, tried)), ...kept };
      },
    ),
  );
}

/**
 * The request's password from the secret store. An earlier run of the same write that was
 * to discard the secret deletes it only after its write succeeded: when this run finds the
 * secret gone, that write was done (undefined), and Durable's at-least-once runs stay
 * idempotent (DESIGN invariant 4).
 */
async function passwordOf(
  services: WorkflowServices,
  name: string,
  discardedByEarlierRun: boolean,
): Promise<string | undefined> {
  try {
    return await services.secrets.get(name);
  } catch (error) {
    if (discardedByEarlierRun && isProvisioningError(error) && error.code === 'SECRET_NOT_FOUND') {
      return undefined;
    }
    throw error;
  }
}

/** Whether a read showing `shown` may show an object the service deleted (wasDeleted). */
function deletedBefore(
  s: WorkflowServices,
  connector: Connector,
  stored: AccountRecord | null | undefined,
  shown: TargetAccount,
): boolean {
  return wasDeleted(
    stored,
    shown,
    (s.now ?? Date.now)(),
    connector.capabilities.visibilityWindowMs,
  );
}
