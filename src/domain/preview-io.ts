import { judgeAdoption } from './account-adoption';
import type { AccountChanges, AccountProfile, TargetAccount } from './account';
import type { SerializedError } from './errors';
import { PreviewState } from './preview-state';
import { changesOf } from './profile-read-back';
import type { AsyncIo, IoResult } from './step-machine';
import {
  STEP_OPS,
  type AccountLookup,
  type ReadMembershipsInput,
  type StepOp,
  type WriteMembershipsInput,
} from './step-ops';
import type {
  CreateAccountAnswer,
  DeleteAccountAnswer,
  MembershipRead,
  MembershipWriteAnswer,
  SetEnabledAnswer,
} from './target-answers';

/** The operations that only read: a preview performs them on the target and the service's stores. */
export const READ_OPS = [
  STEP_OPS.findAccount,
  STEP_OPS.readAccount,
  STEP_OPS.lookUpRoles,
  STEP_OPS.resolveGroup,
  STEP_OPS.listManagedGroups,
  STEP_OPS.readMemberships,
] as const;
export type ReadOp = (typeof READ_OPS)[number];

/** Performs one read operation, as the activity of the same name would. */
export type ReadPerformer = (op: ReadOp, input: unknown) => Promise<IoResult<unknown>>;

/**
 * Writes the target would refuse before they are sent, on what it declares of itself
 * (`Connector.passwordRefusal`): a preview answers them with that refusal, as the write would.
 */
export interface PreviewRefusals {
  setPassword?: SerializedError;
}

/** Marks the target id of an account a preview's create would make: the target has no such object. */
const NEW_ACCOUNT_ID = '(new account)';

type Answer = Promise<IoResult<unknown>>;

/**
 * The I/O of a preview (issue 14): every read is performed (the target, the role catalogue,
 * the service's record of the account); every write is answered with what it would do,
 * judged from those reads and the earlier simulated writes, and never sent. The step
 * machines run on it unchanged, so a preview's plan is what the request would do as far as
 * the reads show now. Time is virtual: the machines' waits pass at once.
 *
 * @example
 * const outcome = await driveAsync(requestStep(request, 0, handle), new PreviewIo(reads, Date.now()));
 */
export class PreviewIo implements AsyncIo {
  private readonly state = new PreviewState();
  /** Groups whose writability the preview could not tell (neither catalogue nor target said). */
  readonly unvouchedGroups = new Map<string, string>();
  private time: number;

  constructor(
    private readonly read: ReadPerformer,
    start: number,
    private readonly refusals: PreviewRefusals = {},
  ) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  async sleep(ms: number): Promise<void> {
    this.time += Math.max(0, ms);
  }

  perform(op: StepOp, input: unknown): Answer {
    switch (op) {
      case STEP_OPS.findAccount:
        return this.findAccount(input as { connector: string; accountId: string });
      case STEP_OPS.readAccount:
        return this.readAccount(input as { connector: string; account: TargetAccount });
      case STEP_OPS.readMemberships:
        return this.readMemberships(input as ReadMembershipsInput);
      case STEP_OPS.lookUpRoles:
      case STEP_OPS.resolveGroup:
      case STEP_OPS.listManagedGroups:
        return this.read(op, input);
      case STEP_OPS.createAccount:
        return this.createAccount(input as { connector: string; profile: AccountProfile });
      case STEP_OPS.setPassword:
        // Refused before it is sent, as the request's own write would be.
        if (this.refusals.setPassword !== undefined) {
          return Promise.resolve({ ok: false, error: this.refusals.setPassword });
        }
        return this.onExisting(
          (input as { connector: string }).connector,
          (input as { account: TargetAccount }).account,
          () => null,
        );
      case STEP_OPS.updateAccount: {
        const { connector, account, changes } = input as {
          connector: string;
          account: TargetAccount;
          changes?: AccountChanges;
        };
        return this.onExisting(connector, account, () => {
          if (changes !== undefined) this.state.update(account.id, changes);
          return null;
        });
      }
      case STEP_OPS.setAccountEnabled: {
        const { connector, account, enabled } = input as {
          connector: string;
          account: TargetAccount;
          enabled: boolean;
        };
        return this.onExisting(connector, account, (): SetEnabledAnswer => {
          this.state.setEnabled(account.id, enabled);
          return {};
        });
      }
      case STEP_OPS.deleteAccount:
        return this.deleteAccount(input as { connector: string; account: TargetAccount });
      case STEP_OPS.writeMemberships:
        return this.writeMemberships(input as WriteMembershipsInput);
      case STEP_OPS.withdrawIntent:
        return Promise.resolve(ok(null));
    }
  }

  private async findAccount(input: { connector: string; accountId: string }): Answer {
    const created = this.state.createdFor(input.accountId);
    const found = await this.read(STEP_OPS.findAccount, input);
    if (!found.ok) return found;
    const lookup = found.value as AccountLookup;
    if (lookup.account !== null) this.state.noteRead(lookup.account.id, true);
    const account =
      created ?? (lookup.account === null ? undefined : this.state.apply(lookup.account));
    return ok<AccountLookup>({ ...lookup, account: account ?? null });
  }

  private async readAccount(input: { connector: string; account: TargetAccount }): Answer {
    const { account } = input;
    if (this.state.isGone(account.id)) return ok(null);
    if (this.state.isCreated(account.id)) return ok(this.state.apply(account) ?? null);
    const read = await this.read(STEP_OPS.readAccount, input);
    if (!read.ok) return read;
    const seen = read.value as TargetAccount | null;
    this.state.noteRead(account.id, seen !== null);
    return ok(seen === null ? null : (this.state.apply(seen) ?? null));
  }

  private async readMemberships(input: ReadMembershipsInput): Answer {
    const { account, groupIds } = input;
    if (this.state.isGone(account.id)) return notFound(input.connector, account);
    let shown: MembershipRead = { groupIds: [], names: {}, notices: [] };
    if (!this.state.isCreated(account.id)) {
      const read = await this.read(STEP_OPS.readMemberships, input);
      if (!read.ok) return read;
      shown = read.value as MembershipRead;
    }
    const after = this.state.memberships(account.id, shown.groupIds, groupIds);
    return ok<MembershipRead>({
      ...shown,
      groupIds: after.groupIds,
      names: { ...after.names, ...shown.names },
    });
  }

  /**
   * A create of a taken account ID adopts the existing account where the service's record
   * links it, and meets ACCOUNT_EXISTS where it does not, as a request's create does.
   */
  private async createAccount(input: { connector: string; profile: AccountProfile }): Answer {
    const { profile } = input;
    const found = await this.findAccount({
      connector: input.connector,
      accountId: profile.accountId,
    });
    if (!found.ok) return found;
    const { account: existing, record } = found.value as AccountLookup;
    if (existing !== null) {
      return ok(judgeAdoption({ outcome: 'adopted', account: existing, maybeOurs: false }, record));
    }
    const account: TargetAccount = {
      id: NEW_ACCOUNT_ID,
      accountId: profile.accountId,
      ...(profile.displayName === undefined ? {} : { displayName: profile.displayName }),
      enabled: true,
      profile: changesOf(profile),
    };
    this.state.create(account);
    return ok<CreateAccountAnswer>({ outcome: 'created', account, maybeOurs: false });
  }

  private async deleteAccount(input: { connector: string; account: TargetAccount }): Answer {
    const exists = await this.exists(input.connector, input.account);
    if (typeof exists !== 'boolean') return exists;
    if (exists) this.state.remove(input.account.id);
    return ok<DeleteAccountAnswer>({ outcome: exists ? 'deleted' : 'absent', maybeOurs: false });
  }

  /** Removals, then additions, each answered from the membership the reads and earlier writes show. */
  private async writeMemberships(input: WriteMembershipsInput): Answer {
    const { account } = input;
    const changes = [
      ...input.remove.map((groupId) => ({ groupId, change: 'removed' as const })),
      ...input.add.map((groupId) => ({ groupId, change: 'added' as const })),
    ];
    const vouched = new Set(input.writable);
    for (const { groupId } of changes) {
      if (!vouched.has(groupId)) this.unvouchedGroups.set(groupId, input.names[groupId] ?? groupId);
    }
    const exists = await this.exists(input.connector, account);
    if (typeof exists !== 'boolean') return exists;
    if (!exists) {
      return ok(changes.map((c) => answer(input, c.groupId, c.change, 'accountNotFound')));
    }
    const unknown = changes
      .map((c) => c.groupId)
      .filter((groupId) => this.state.membership(account.id, groupId) === undefined);
    const shown = new Set<string>();
    if (unknown.length > 0) {
      const read = await this.read(STEP_OPS.readMemberships, {
        connector: input.connector,
        account,
        groupIds: unknown,
      });
      if (!read.ok) return read;
      for (const groupId of (read.value as MembershipRead).groupIds) shown.add(groupId);
    }
    const answers = changes.map(({ groupId, change }) => {
      const member = this.state.membership(account.id, groupId) ?? shown.has(groupId);
      const wanted = change === 'added';
      this.state.setMembership(account.id, groupId, wanted, input.names[groupId]);
      return answer(input, groupId, change, member === wanted ? 'already' : 'applied');
    });
    return ok(answers);
  }

  /** A write on an account the target does not have answers ACCOUNT_NOT_FOUND, as the connectors do. */
  private async onExisting(
    connector: string,
    account: TargetAccount,
    write: () => unknown,
  ): Answer {
    const exists = await this.exists(connector, account);
    if (typeof exists !== 'boolean') return exists;
    return exists ? ok(write()) : notFound(connector, account);
  }

  /** Whether the account is there: from the simulated writes, an earlier read, or a read now. */
  private async exists(
    connector: string,
    account: TargetAccount,
  ): Promise<boolean | IoResult<unknown>> {
    const known = this.state.exists(account.id);
    if (known !== undefined) return known;
    const read = await this.readAccount({ connector, account });
    if (!read.ok) return read;
    return read.value !== null;
  }
}

function ok<T>(value: T): IoResult<T> {
  return { ok: true, value };
}

function notFound(connector: string, account: TargetAccount): IoResult<never> {
  const error: SerializedError = {
    code: 'ACCOUNT_NOT_FOUND',
    message: `account "${account.accountId}" not found on connector "${connector}"`,
    retryable: false,
    object: account.accountId,
  };
  return { ok: false, error };
}

function answer(
  input: WriteMembershipsInput,
  groupId: string,
  change: 'added' | 'removed',
  outcome: MembershipWriteAnswer['outcome'],
): MembershipWriteAnswer {
  return {
    groupId,
    groupName: input.names[groupId] ?? groupId,
    change,
    outcome,
    maybeOurs: false,
  };
}
