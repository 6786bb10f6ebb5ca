import type {
  AppliedMembershipChange,
  ConnectorCapabilities,
  ConnectorKind,
  CreateAccountResult,
  MembershipRead,
} from '../../../src/connectors/connector';
import type { TargetAccount } from '../../../src/domain/account';
import { ProvisioningError } from '../../../src/domain/errors';
import type { GroupRef } from '../../../src/domain/group';
import type { JournalEntry } from '../../../src/domain/journal-entry';
import { silentLogger } from '../../../src/domain/logger';
import type { ActivityFunction } from '../../../src/runtime/local-host/activity-runner';
import type { VirtualClockPort } from '../../../src/runtime/local-host/virtual-clock';
import type { LeaseResult } from '../../../src/store/account-leases';
import type {
  AccountInput,
  ApplyMembershipChangesInput,
  ConnectorInput,
  CreateAccountInput,
  FindAccountInput,
  ImportCatalogueInput,
  LeaseInput,
  LookUpRolesInput,
  ReadMembershipsInput,
  RecordJournalInput,
  ResolveGroupInput,
  SetEnabledInput,
  SetPasswordInput,
  UpdateAccountInput,
} from '../../../src/workflows/activities/activity-inputs';
import { runActivity, type ActivityResult } from '../../../src/workflows/activity-result';
import { ACTIVITIES, type ActivityName } from '../../../src/workflows/names';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { compatibilityReport, importIntoCatalogue } from './fake-job-activities';
import { FakeMemberships } from './fake-memberships';

/** One activity invocation: each retry attempt is a call of its own. */
export interface FakeCall {
  name: ActivityName;
  /** Virtual time of the call (ms since the epoch). */
  at: number;
  input: unknown;
  /** What the handler returned; undefined when it threw (a retryable failure). */
  result?: ActivityResult<unknown>;
}

/**
 * Runs inside the activity before the fake target acts, with the 1-based number of this
 * activity's call: a ProvisioningError thrown here fails the activity as the target would.
 */
export type CallHook = (input: unknown, call: number) => void | Promise<void>;

export interface FakeTargetOptions {
  clock: VirtualClockPort;
  connector?: string;
  kind?: ConnectorKind;
  capabilities?: Partial<ConnectorCapabilities>;
  /** How long a membership write takes to show in reads, on the virtual clock. */
  visibilityDelayMs?: number;
  /** Groups that exist on the target. */
  groups?: GroupRef[];
  /** The role catalogue: the connector's managed groups (setMemberships). */
  catalogue?: GroupRef[];
}

export interface FakeAccount extends TargetAccount {
  password?: string;
}

/** The activities that change the target (the journal and leases are the service's own state). */
export const TARGET_WRITES: readonly ActivityName[] = [
  ACTIVITIES.createAccount,
  ACTIVITIES.updateAccount,
  ACTIVITIES.setAccountEnabled,
  ACTIVITIES.setPassword,
  ACTIVITIES.deleteAccount,
  ACTIVITIES.applyMembershipChanges,
];

/** A Graph-like target's capabilities: what requests carry unless a test says otherwise. */
export const FAKE_CAPABILITIES: ConnectorCapabilities = {
  membershipVisibilityWindowMs: 30_000,
  membershipReadScope: 'all',
  membershipWriteBatchSize: 20,
};

/**
 * An in-memory target and service state behind fake activity handlers that return the
 * same `ActivityResult` shapes as src/workflows/activities (through the real
 * `runActivity`, so retryable failures are thrown exactly as in production). Membership
 * writes become visible to reads only `visibilityDelayMs` later on the virtual clock
 * (graph-behaviour.md: replication delay).
 */
export class FakeTarget {
  readonly connector: string;
  readonly kind: ConnectorKind;
  readonly capabilities: ConnectorCapabilities;
  readonly memberships: FakeMemberships;
  readonly accounts = new Map<string, FakeAccount>();
  readonly groups = new Map<string, GroupRef>();
  readonly catalogue: GroupRef[];
  readonly leases = new Map<string, { owner: string; expiresAtMs: number }>();
  readonly journal: JournalEntry[] = [];
  readonly secrets = new Map<string, string>();
  readonly calls: FakeCall[] = [];
  readonly hooks: Partial<Record<ActivityName, CallHook>> = {};
  private readonly clock: VirtualClockPort;
  private nextId = 1;

  constructor(options: FakeTargetOptions) {
    this.clock = options.clock;
    this.connector = options.connector ?? 'hr';
    this.kind = options.kind ?? 'graph';
    this.capabilities = { ...FAKE_CAPABILITIES, ...options.capabilities };
    this.memberships = new FakeMemberships(options.visibilityDelayMs ?? 0);
    for (const group of options.groups ?? []) this.groups.set(group.id, group);
    this.catalogue = [...(options.catalogue ?? [])];
  }

  /** Seeds an account whose memberships have been visible for ever. */
  addAccount(accountId: string, groupIds: string[] = [], enabled = true): FakeAccount {
    const account: FakeAccount = { id: `u-${this.nextId++}`, accountId, enabled };
    this.accounts.set(accountId, account);
    for (const groupId of groupIds) this.addMembership(accountId, groupId);
    return account;
  }

  /** Makes an existing account a member of a group, visible at once (a change made elsewhere). */
  addMembership(accountId: string, groupId: string): void {
    const account = this.accounts.get(accountId);
    if (account === undefined) throw new Error(`no account ${accountId} on the fake target`);
    this.memberships.seed(account.id, groupId);
  }

  /** The account's direct groups as the target knows them (visible or not yet). */
  directGroups(accountId: string): string[] {
    const account = this.accounts.get(accountId);
    return account === undefined ? [] : this.memberships.known(account.id);
  }

  /** The calls of one activity, in order. */
  callsOf(name: ActivityName): FakeCall[] {
    return this.calls.filter((call) => call.name === name);
  }

  /** The handlers by activity name, as the driver takes them. */
  activities(): Record<ActivityName, ActivityFunction> {
    return {
      acquireAccountLease: this.handler(ACTIVITIES.acquireAccountLease, (input: LeaseInput) =>
        this.acquire(input),
      ),
      releaseAccountLease: this.handler(
        ACTIVITIES.releaseAccountLease,
        (input: Omit<LeaseInput, 'nowMs' | 'ttlMs'>) => {
          const key = `${input.connector}/${input.accountId}`;
          if (this.leases.get(key)?.owner === input.owner) this.leases.delete(key);
          return null;
        },
      ),
      findAccount: this.handler(ACTIVITIES.findAccount, (input: FindAccountInput) => {
        this.requireConnector(input);
        const account = this.accounts.get(input.accountId);
        return account === undefined ? null : publicAccount(account);
      }),
      createAccount: this.handler(ACTIVITIES.createAccount, (input: CreateAccountInput) =>
        this.create(input),
      ),
      updateAccount: this.handler(ACTIVITIES.updateAccount, (input: UpdateAccountInput) => {
        const account = this.existing(input);
        if (input.changes.displayName !== undefined)
          account.displayName = input.changes.displayName;
        return null;
      }),
      setAccountEnabled: this.handler(ACTIVITIES.setAccountEnabled, (input: SetEnabledInput) => {
        this.existing(input).enabled = input.enabled;
        return null;
      }),
      setPassword: this.handler(ACTIVITIES.setPassword, (input: SetPasswordInput) => {
        const password = this.secret(input.passwordSecret);
        this.existing(input).password = password;
        if (input.discardAfterUse) this.secrets.delete(input.passwordSecret);
        return null;
      }),
      deleteAccount: this.handler(ACTIVITIES.deleteAccount, (input: AccountInput) => {
        this.requireConnector(input);
        return this.accounts.delete(input.account.accountId) ? 'deleted' : 'absent';
      }),
      discardSecret: this.handler(ACTIVITIES.discardSecret, (input: { name: string }) => {
        this.secrets.delete(input.name);
        return null;
      }),
      lookUpRoles: this.handler(ACTIVITIES.lookUpRoles, (input: LookUpRolesInput) =>
        this.lookUpRoles(input),
      ),
      resolveGroup: this.handler(ACTIVITIES.resolveGroup, (input: ResolveGroupInput) =>
        this.resolve(input),
      ),
      listManagedGroups: this.handler(ACTIVITIES.listManagedGroups, (input: ConnectorInput) => {
        this.requireConnector(input);
        return this.catalogue.map((group) => ({ id: group.id, displayName: group.displayName }));
      }),
      readMemberships: this.handler(ACTIVITIES.readMemberships, (input: ReadMembershipsInput) =>
        this.read(input),
      ),
      applyMembershipChanges: this.handler(
        ACTIVITIES.applyMembershipChanges,
        (input: ApplyMembershipChangesInput) => this.apply(input),
      ),
      recordJournal: this.handler(ACTIVITIES.recordJournal, (input: RecordJournalInput) => {
        for (const entry of input.entries) {
          const at = this.journal.findIndex((existing) => existing.key === entry.key);
          if (at >= 0) this.journal[at] = entry;
          else this.journal.push(entry);
        }
        return null;
      }),
      importCatalogue: this.handler(ACTIVITIES.importCatalogue, (input: ImportCatalogueInput) => {
        this.requireConnector(input);
        return importIntoCatalogue(this.groups.values(), this.catalogue, input);
      }),
      runCompatibility: this.handler(ACTIVITIES.runCompatibility, (input: ConnectorInput) => {
        this.requireConnector(input);
        return compatibilityReport(input.connector, this.kind);
      }),
    };
  }

  private handler<I, T>(name: ActivityName, body: (input: I) => T): ActivityFunction {
    // runActivity only reads the logger of the services.
    const services = async () => ({ logger: silentLogger }) as WorkflowServices;
    return async (input: unknown) => {
      const call: FakeCall = { name, at: this.clock.now(), input: structuredClone(input) };
      this.calls.push(call);
      const number = this.callsOf(name).length;
      call.result = await runActivity(name, services, async () => {
        await this.hooks[name]?.(input, number);
        return body(input as I);
      });
      return call.result;
    };
  }

  private requireConnector(input: ConnectorInput): void {
    if (input.connector !== this.connector) {
      throw new ProvisioningError('CONNECTOR_NOT_FOUND', `unknown connector "${input.connector}"`, {
        object: input.connector,
      });
    }
  }

  private existing(input: AccountInput): FakeAccount {
    this.requireConnector(input);
    const account = this.accounts.get(input.account.accountId);
    if (account === undefined) {
      throw new ProvisioningError('ACCOUNT_NOT_FOUND', `account "${input.account.accountId}"`, {
        object: input.account.accountId,
      });
    }
    return account;
  }

  private secret(name: string): string {
    const value = this.secrets.get(name);
    if (value === undefined) {
      throw new ProvisioningError('SECRET_NOT_FOUND', `secret "${name}" not found`, {
        object: name,
      });
    }
    return value;
  }

  private acquire(input: LeaseInput): LeaseResult {
    const key = `${input.connector}/${input.accountId}`;
    const current = this.leases.get(key);
    if (
      current !== undefined &&
      current.owner !== input.owner &&
      current.expiresAtMs > input.nowMs
    ) {
      return {
        acquired: false,
        holder: current.owner,
        expiresAt: new Date(current.expiresAtMs).toISOString(),
      };
    }
    const expiresAtMs = input.nowMs + input.ttlMs;
    this.leases.set(key, { owner: input.owner, expiresAtMs });
    return { acquired: true, expiresAt: new Date(expiresAtMs).toISOString() };
  }

  private create(input: CreateAccountInput): CreateAccountResult {
    this.requireConnector(input);
    const password =
      input.passwordSecret === undefined ? undefined : this.secret(input.passwordSecret);
    const existing = this.accounts.get(input.profile.accountId);
    let outcome: CreateAccountResult['outcome'] = 'adopted';
    let account = existing;
    if (account === undefined) {
      account = this.addAccount(input.profile.accountId);
      if (input.profile.displayName !== undefined) account.displayName = input.profile.displayName;
      if (password !== undefined) account.password = password;
      outcome = 'created';
    }
    if (input.discardAfterUse === true && input.passwordSecret !== undefined) {
      this.secrets.delete(input.passwordSecret);
    }
    return { account: publicAccount(account), outcome };
  }

  /** The role catalogue in one read: by id as named, by name (any case) or null when unknown. */
  private lookUpRoles(input: LookUpRolesInput): (GroupRef | null)[] {
    this.requireConnector(input);
    return input.selectors.map((selector) => {
      if ('id' in selector) {
        const role = this.catalogue.find((group) => group.id === selector.id);
        return { id: selector.id, displayName: role?.displayName ?? selector.id };
      }
      const wanted = selector.name.toLowerCase();
      const roles = this.catalogue.filter((group) => group.displayName.toLowerCase() === wanted);
      if (roles.length > 1) {
        throw new ProvisioningError('REQUEST_INVALID', `group "${selector.name}" names two roles`, {
          object: selector.name,
        });
      }
      const [role] = roles;
      return role === undefined ? null : { id: role.id, displayName: role.displayName };
    });
  }

  /** A group the catalogue does not know, looked up on the target by exact display name. */
  private resolve(input: ResolveGroupInput): GroupRef {
    this.requireConnector(input);
    const { selector } = input;
    if ('id' in selector) return { id: selector.id, displayName: selector.id };
    const found = [...this.groups.values()].find((group) => group.displayName === selector.name);
    if (found === undefined) {
      throw new ProvisioningError(
        'GROUP_NOT_FOUND',
        `group "${selector.name}" not found in the role catalogue or on connector "${this.connector}"`,
        { object: selector.name },
      );
    }
    return { id: found.id, displayName: found.displayName };
  }

  private read(input: ReadMembershipsInput): MembershipRead {
    this.requireConnector(input);
    let groupIds = this.memberships.visible(input.account.id, this.clock.now());
    if (this.capabilities.membershipReadScope === 'named') {
      groupIds = groupIds.filter((id) => input.groupIds.includes(id));
    }
    const names: Record<string, string> = {};
    for (const id of [...groupIds, ...input.groupIds]) {
      names[id] = this.groups.get(id)?.displayName ?? id;
    }
    return { groupIds, names, notices: [] };
  }

  private apply(input: ApplyMembershipChangesInput): AppliedMembershipChange[] {
    this.requireConnector(input);
    const unknown = [...input.remove, ...input.add].filter((id) => !this.groups.has(id));
    if (unknown.length > 0) {
      throw new ProvisioningError('GROUP_NOT_FOUND', `groups not found: ${unknown.join(', ')}`, {
        object: unknown.join(', '),
      });
    }
    const now = this.clock.now();
    const current = new Set(this.memberships.known(input.account.id));
    const write = (groupId: string, member: boolean): AppliedMembershipChange => {
      const groupName = input.names[groupId] ?? this.groups.get(groupId)?.displayName ?? groupId;
      const change = member ? 'added' : 'removed';
      if (current.has(groupId) === member)
        return { groupId, groupName, change, alreadyInPlace: true };
      this.memberships.write(input.account.id, groupId, member, now);
      return { groupId, groupName, change };
    };
    return [
      ...input.remove.map((id) => write(id, false)),
      ...input.add.map((id) => write(id, true)),
    ];
  }
}

function publicAccount(account: FakeAccount): TargetAccount {
  return {
    id: account.id,
    accountId: account.accountId,
    ...(account.displayName === undefined ? {} : { displayName: account.displayName }),
    enabled: account.enabled,
  };
}
