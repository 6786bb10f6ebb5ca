import { randomUUID } from 'node:crypto';
import { ProvisioningError } from '../../domain/errors.js';
import type { DirectoryRecord, DirectoryStore } from './directory-store.js';
import type { SandboxGroupSeed, SandboxUserSeed } from './graph-sandbox-types.js';

/** Graph's mailNickname alphabet, for nicknames derived from names. */
function toMailNickname(name: string): string {
  const nickname = name.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 64);
  return nickname === '' ? 'group' : nickname;
}

/**
 * Seeding without HTTP: objects and memberships visible at once. Kept to plain map
 * writes so 20,000 groups or 500-group nestings seed in milliseconds.
 */
export class SandboxSeeder {
  constructor(
    private readonly store: DirectoryStore,
    private readonly now: () => number,
    private readonly defaultDomain: () => string,
  ) {}

  addUser(seed: SandboxUserSeed): { id: string } {
    const id = this.newId(seed.id);
    if (this.store.userIdByUpn(seed.userPrincipalName) !== undefined) {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `a sandbox user '${seed.userPrincipalName}' already exists`,
      );
    }
    const localPart = seed.userPrincipalName.split('@')[0] ?? seed.userPrincipalName;
    const user: DirectoryRecord = {
      id,
      userPrincipalName: seed.userPrincipalName,
      displayName: seed.displayName ?? localPart,
      mailNickname: toMailNickname(localPart),
      accountEnabled: seed.accountEnabled ?? true,
      createdDateTime: new Date(this.now()).toISOString(),
      ...(seed.signInActivity === undefined
        ? {}
        : {
            signInActivity: {
              lastSignInDateTime: seed.signInActivity.lastSignInDateTime ?? null,
              lastNonInteractiveSignInDateTime:
                seed.signInActivity.lastNonInteractiveSignInDateTime ?? null,
              lastSuccessfulSignInDateTime:
                seed.signInActivity.lastSuccessfulSignInDateTime ?? null,
            },
          }),
    };
    this.store.seedUser(user);
    return { id };
  }

  addGroup(seed: SandboxGroupSeed): { id: string } {
    const id = this.newId(seed.id);
    const mailEnabled = seed.mailEnabled ?? false;
    const mailNickname = toMailNickname(seed.displayName);
    const dynamic = seed.groupTypes?.includes('DynamicMembership') === true;
    this.store.seedGroup({
      id,
      displayName: seed.displayName,
      description: null,
      createdDateTime: new Date(this.now()).toISOString(),
      groupTypes: [...(seed.groupTypes ?? [])],
      mailEnabled,
      mailNickname,
      mail: mailEnabled ? `${mailNickname}@${this.defaultDomain()}` : null,
      securityEnabled: seed.securityEnabled ?? true,
      onPremisesSyncEnabled: seed.onPremisesSyncEnabled ?? null,
      isAssignableToRole: seed.isAssignableToRole ?? false,
      membershipRule: seed.membershipRule ?? null,
      membershipRuleProcessingState: dynamic ? 'On' : null,
      visibility: null,
    });
    return { id };
  }

  /** Changes a seeded group's properties; the mail address follows `mailEnabled`. */
  updateGroup(groupId: string, changes: Omit<Partial<SandboxGroupSeed>, 'id'>): void {
    const group = this.store.group(groupId);
    if (group === undefined) {
      throw new ProvisioningError('REQUEST_INVALID', `the Graph sandbox has no group '${groupId}'`);
    }
    const next: Record<string, unknown> = {};
    for (const [property, value] of Object.entries(changes)) {
      if (value !== undefined) next[property] = Array.isArray(value) ? [...value] : value;
    }
    if (changes.mailEnabled !== undefined) {
      next['mail'] = changes.mailEnabled
        ? `${String(group['mailNickname'])}@${this.defaultDomain()}`
        : null;
    }
    this.store.updateGroup(groupId, next);
  }

  addDirectoryRole(seed: { displayName: string }): { id: string } {
    const id = this.newId(undefined);
    this.store.seedDirectoryRole({
      id,
      displayName: seed.displayName,
      description: null,
      roleTemplateId: randomUUID(),
    });
    return { id };
  }

  addAdministrativeUnit(seed: { displayName: string }): { id: string } {
    const id = this.newId(undefined);
    this.store.seedAdministrativeUnit({
      id,
      displayName: seed.displayName,
      description: null,
      visibility: null,
    });
    return { id };
  }

  /** Containers: group, directory role, administrative unit. Members: users and groups (cycles allowed). */
  addMember(containerId: string, memberId: string): void {
    const containerKind = this.store.kindOf(containerId);
    if (containerKind === undefined || containerKind === 'user') {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `'${containerId}' is not a sandbox group, role or unit`,
      );
    }
    const memberKind = this.store.kindOf(memberId);
    if (memberKind !== 'user' && memberKind !== 'group') {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `'${memberId}' is not a sandbox user or group`,
      );
    }
    this.store.seedMember(containerId, memberId);
  }

  private newId(requested: string | undefined): string {
    if (requested === undefined) return randomUUID();
    if (this.store.idInUse(requested)) {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `the sandbox id '${requested}' is already in use`,
      );
    }
    return requested;
  }
}
