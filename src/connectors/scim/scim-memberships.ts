import type { ScimConnectorSettings } from '../../config/connector-settings';
import type { TargetAccount } from '../../domain/account';
import { ProvisioningError, isProvisioningError } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import type { MembershipPlan } from '../../domain/membership-plan';
import type { AppliedMembershipChange, MembershipRead } from '../connector';
import type { HttpResult } from '../http/transport';
import type { ScimErrorContext } from './error-mapper';
import { quoteFilterValue } from './filter';
import { interpretListResponse } from './list-response';
import { addMemberPatch, removeMemberPatch } from './patch-op';
import type { ScimHttp } from './scim-http';
import { scimUrl } from './scim-paths';

interface GroupMembership {
  groupId: string;
  name: string;
  isMember: boolean;
  notice?: string;
}

/**
 * Connector A's memberships: read the group before writing (spec: Read group members
 * before writing), write deltas with PATCH `add`/`remove` on `members` (other members
 * untouched), and judge each write by its own answer where it carries the members.
 */
export class ScimMemberships {
  constructor(
    private readonly settings: ScimConnectorSettings,
    private readonly http: ScimHttp,
  ) {}

  /** The member value for an account: the account ID by default (spec: Groups). */
  memberValue(account: TargetAccount): string {
    return this.settings.memberValue === 'accountId' ? account.accountId : account.id;
  }

  async read(account: TargetAccount, groupIds: readonly string[]): Promise<MembershipRead> {
    const results = await Promise.all(groupIds.map((id) => this.readOne(account, id)));
    return {
      groupIds: results.filter((r) => r.isMember).map((r) => r.groupId),
      names: Object.fromEntries(results.map((r) => [r.groupId, r.name])),
      notices: results.flatMap((r) => (r.notice === undefined ? [] : [r.notice])),
    };
  }

  /** Removals first, then additions (spec: Membership write procedure, steps 2 and 3). */
  async apply(
    account: TargetAccount,
    plan: MembershipPlan,
    names: Record<string, string>,
  ): Promise<AppliedMembershipChange[]> {
    const removed = await Promise.all(
      plan.remove.map((id) => this.writeOne(account, id, names[id] ?? id, 'removed')),
    );
    const added = await Promise.all(
      plan.add.map((id) => this.writeOne(account, id, names[id] ?? id, 'added')),
    );
    return [...removed, ...added];
  }

  private async readOne(account: TargetAccount, groupId: string): Promise<GroupMembership> {
    const value = this.memberValue(account);
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.settings.baseUrl, 'Groups', groupId),
      accept: [200],
      context: this.groupContext(groupId, groupId),
    });
    const group = (result.body ?? {}) as Record<string, unknown>;
    const name = typeof group.displayName === 'string' ? group.displayName : groupId;
    const members = readMemberValues(group);
    if (members !== undefined) return { groupId, name, isMember: members.includes(value) };
    // No member list: an empty group (RFC 7643 omits unassigned attributes), a server that
    // never returns members, or a group too big to return (scim-interop.md).
    return {
      groupId,
      name,
      isMember: await this.checkByFilter(groupId, name, value),
      notice:
        `group ${describeGroup({ id: groupId, displayName: name })} came without a member list ` +
        `(empty, or the server does not return members): membership checked with a members filter`,
    };
  }

  /** Entra's one-membership check (scim-interop.md): `id eq "g" and members eq "u"`. */
  private async checkByFilter(groupId: string, name: string, value: string): Promise<boolean> {
    const filter = `id eq ${quoteFilterValue(groupId)} and members eq ${quoteFilterValue(value)}`;
    let result: HttpResult;
    try {
      result = await this.http.send({
        method: 'GET',
        url: scimUrl(this.settings.baseUrl, 'Groups', undefined, { filter, attributes: 'id' }),
        accept: [200, 404],
        context: this.groupContext(groupId, name),
      });
    } catch (error) {
      if (!isProvisioningError(error) || error.retryable) throw error;
      throw new ProvisioningError(
        'MEMBERSHIP_READ_UNAVAILABLE',
        `connector "${this.settings.name}": group ${describeGroup({ id: groupId, displayName: name })} ` +
          `returns no members and refuses the members filter, so its membership cannot be read (${error.message})`,
        { object: groupId, status: error.status, cause: error },
      );
    }
    if (result.status === 404) return false;
    const page = interpretListResponse(result.body, result.describe);
    return page.resources.some((resource) => resource.id === groupId);
  }

  private async writeOne(
    account: TargetAccount,
    groupId: string,
    groupName: string,
    change: 'added' | 'removed',
  ): Promise<AppliedMembershipChange> {
    const value = this.memberValue(account);
    const body =
      change === 'added'
        ? addMemberPatch(value)
        : removeMemberPatch(value, this.settings.memberRemoveStyle);
    const result = await this.http
      .send({
        method: 'PATCH',
        url: scimUrl(this.settings.baseUrl, 'Groups', groupId),
        json: body,
        // 409 on add / 400 noTarget on remove: already in the wanted state (invariant 4).
        accept: change === 'added' ? [200, 204, 409] : [200, 204],
        context: this.groupContext(groupId, groupName, account.accountId),
      })
      .catch((error: unknown) => {
        const notAMember =
          change === 'removed' &&
          isProvisioningError(error) &&
          error.details?.scimType === 'noTarget';
        if (notAMember) return undefined;
        throw error;
      });
    const applied: AppliedMembershipChange = { groupId, groupName, change };
    // 409 on add, noTarget on remove: the server says it was already so (invariant 4).
    if (result === undefined || result.status === 409) return { ...applied, alreadyInPlace: true };
    if (result.status !== 200) return applied;
    const members = readMemberValues((result.body ?? {}) as Record<string, unknown>);
    if (members === undefined) return applied;
    return { ...applied, confirmedByWrite: members.includes(value) === (change === 'added') };
  }

  private groupContext(groupId: string, name: string, accountId?: string): ScimErrorContext {
    const group = describeGroup({ id: groupId, displayName: name });
    return {
      connector: this.settings.name,
      subject:
        accountId === undefined ? `group ${group}` : `group ${group}, account "${accountId}"`,
      notFound: 'GROUP_NOT_FOUND',
      object: groupId,
    };
  }
}

/** The `value`s of a group's `members`, or undefined when the attribute is absent. */
export function readMemberValues(group: Record<string, unknown>): string[] | undefined {
  const key = Object.keys(group).find((name) => name.toLowerCase() === 'members');
  const members = key === undefined ? undefined : group[key];
  if (!Array.isArray(members)) return undefined;
  return members.flatMap((member: unknown) => {
    const value = (member as { value?: unknown } | null)?.value;
    return typeof value === 'string' ? [value] : [];
  });
}
