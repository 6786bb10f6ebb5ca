import { z } from 'zod';
import { commonConnectorFields } from '../../src/config/connector-settings';
import type { Connector, MembershipWriteAnswer } from '../../src/connectors/connector';
import type { ConnectorKindDescriptor } from '../../src/connectors/connector-kind';
import type { TargetAccount } from '../../src/domain/account';
import { ProvisioningError } from '../../src/domain/errors';

/**
 * A third connector kind, as small as the port allows: a target kept in memory whose reads
 * show every write at once. It is registered through the same path as SCIM and Graph (a
 * settings schema, a descriptor, one registration), so a test can show that nothing in the
 * configuration, the API, the jobs, the orchestrations or the activities knows kinds by name.
 */
export const memorySettingsSchema = z.object({
  ...commonConnectorFields,
  kind: z.literal('memory'),
  /** The groups the target holds, by display name. */
  groups: z.array(z.string().min(1)).min(1, 'must name at least one group'),
});
export type MemorySettings = z.output<typeof memorySettingsSchema>;

interface MemoryAccount {
  id: string;
  accountId: string;
  displayName?: string;
  enabled: boolean;
}

/** What the memory target really holds: the truth a test judges by. */
export class MemoryTarget {
  readonly accounts = new Map<string, MemoryAccount>();
  /** Group id -> display name. */
  readonly groups = new Map<string, string>();
  /** Group id -> ids of the member accounts. */
  readonly members = new Map<string, Set<string>>();
  private nextId = 1;

  constructor(groupNames: readonly string[]) {
    groupNames.forEach((displayName, index) => {
      this.groups.set(`g-${index + 1}`, displayName);
      this.members.set(`g-${index + 1}`, new Set());
    });
  }

  byAccountId(accountId: string): MemoryAccount | undefined {
    return [...this.accounts.values()].find((a) => a.accountId === accountId);
  }

  /** The display names of the groups the account is a member of. */
  groupNamesOf(accountId: string): string[] {
    const account = this.byAccountId(accountId);
    if (account === undefined) return [];
    return [...this.members]
      .filter(([, ids]) => ids.has(account.id))
      .map(([groupId]) => this.groups.get(groupId)!)
      .sort();
  }

  newId(): string {
    return `u-${this.nextId++}`;
  }
}

const targets = new Map<string, MemoryTarget>();

/** The target behind the memory connector of this name. */
export function memoryTarget(connector: string): MemoryTarget {
  const target = targets.get(connector);
  if (target === undefined) throw new Error(`no memory connector "${connector}" was built`);
  return target;
}

export const MEMORY_KIND: ConnectorKindDescriptor<MemorySettings> = {
  kind: 'memory',
  settingsSchema: memorySettingsSchema,
  catalogueJobType: 'Import memory groups',
  mappedAttributes: () => [],
  create(settings) {
    const target = new MemoryTarget(settings.groups);
    targets.set(settings.name, target);
    return memoryConnector(settings.name, target);
  },
};

function memoryConnector(name: string, target: MemoryTarget): Connector {
  const view = (account: MemoryAccount): TargetAccount => ({
    id: account.id,
    accountId: account.accountId,
    enabled: account.enabled,
    ...(account.displayName === undefined ? {} : { displayName: account.displayName }),
    profile: account.displayName === undefined ? {} : { displayName: account.displayName },
  });
  const existing = (account: TargetAccount): MemoryAccount => {
    const found = target.accounts.get(account.id);
    if (found === undefined) {
      throw new ProvisioningError('ACCOUNT_NOT_FOUND', `no account ${account.id}`, {
        object: account.accountId,
      });
    }
    return found;
  };
  const groupRefs = () =>
    [...target.groups].map(([id, displayName]) => ({ id, displayName, writable: true }));
  return {
    name,
    kind: 'memory',
    capabilities: {
      visibilityWindowMs: 0,
      membershipReadScope: 'all',
      membershipWriteBatchSize: 1,
      membershipWritesSayIfInPlace: false,
    },
    checkStatus: async () => ({
      connector: name,
      kind: 'memory',
      ok: true,
      summary: 'in memory',
      findings: [{ name: 'memory', outcome: 'ok', detail: 'always there' }],
    }),
    probeHealth: async () => ({ healthy: true, seen: 'the memory target is always there' }),
    // The memory target tells account IDs apart exactly (byAccountId).
    accountKey: (accountId) => accountId,
    async *listAccounts() {
      for (const account of target.accounts.values()) yield view(account);
    },
    findAccount: async (accountId) => {
      const account = target.byAccountId(accountId);
      return account === undefined ? undefined : view(account);
    },
    // Its reads show every account at once, exactly as named: a lookup that found none proves it.
    proveAbsent: async (accountId) => {
      const account = target.byAccountId(accountId);
      return account === undefined
        ? { outcome: 'absent', evidence: 'the memory target holds no such account' }
        : { outcome: 'found', account: view(account) };
    },
    readAccount: async (account) => {
      const found = target.accounts.get(account.id);
      return found === undefined ? undefined : view(found);
    },
    createAccount: async (profile) => {
      const taken = target.byAccountId(profile.accountId);
      if (taken !== undefined)
        return { outcome: 'adopted', account: view(taken), maybeOurs: false };
      const account: MemoryAccount = {
        id: target.newId(),
        accountId: profile.accountId,
        enabled: true,
        ...(profile.displayName === undefined ? {} : { displayName: profile.displayName }),
      };
      target.accounts.set(account.id, account);
      return { outcome: 'created', account: view(account), maybeOurs: false };
    },
    updateAccount: async (account, changes) => {
      const found = existing(account);
      if (changes.displayName !== undefined) found.displayName = changes.displayName;
    },
    setPassword: async (account) => {
      existing(account);
    },
    setEnabled: async (account, enabled) => {
      existing(account).enabled = enabled;
      return { seen: enabled };
    },
    deleteAccount: async (account) => {
      const deleted = target.accounts.delete(account.id);
      for (const ids of target.members.values()) ids.delete(account.id);
      return { outcome: deleted ? 'deleted' : 'absent', maybeOurs: false };
    },
    async *importGroups() {
      yield* groupRefs();
    },
    readGroup: async (groupId) => groupRefs().find((g) => g.id === groupId),
    findGroup: async (displayName) => groupRefs().find((g) => g.displayName === displayName),
    searchGroups: async (text) => groupRefs().filter((g) => g.displayName.includes(text)),
    readMemberships: async (account) => {
      const groupIds = [...target.members]
        .filter(([, ids]) => ids.has(account.id))
        .map(([id]) => id);
      return { groupIds, names: Object.fromEntries(target.groups), notices: [] };
    },
    writeMemberships: async (account, changes) => {
      const answers: MembershipWriteAnswer[] = [];
      const known = target.accounts.has(account.id);
      for (const [change, groupIds] of [
        ['removed', changes.remove],
        ['added', changes.add],
      ] as const) {
        for (const groupId of groupIds) {
          const members = target.members.get(groupId);
          if (members === undefined) {
            throw new ProvisioningError('GROUP_NOT_FOUND', `no group ${groupId}`, {
              object: groupId,
            });
          }
          const before = members.has(account.id);
          if (known && change === 'added') members.add(account.id);
          if (known && change === 'removed') members.delete(account.id);
          answers.push({
            groupId,
            groupName: target.groups.get(groupId)!,
            change,
            outcome: !known
              ? 'accountNotFound'
              : before === (change === 'added')
                ? 'already'
                : 'applied',
            maybeOurs: false,
          });
        }
      }
      return answers;
    },
    readLastLogon: async () => ({ status: 'not available', detail: 'the memory kind keeps none' }),
    close: async () => undefined,
  };
}
