import type { ScimConnectorSettings } from './scim-settings';
import type { TargetAccount } from '../../domain/account';
import { ProvisioningError, isProvisioningError, type ErrorCode } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import type { MembershipRead, MembershipWriteAnswer } from '../connector';
import type { HttpResult } from '../http/transport';
import { mapScimError, readScimType, type ScimErrorContext } from './error-mapper';
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

/** How servers refuse a filter they do not support: 400 (invalidFilter or none), 403, 501. */
const FILTER_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  'SCIM_FILTER_UNSUPPORTED',
  'SCIM_INVALID_VALUE',
  'SCIM_REQUEST_REJECTED',
  'TARGET_FORBIDDEN',
]);

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

  async read(
    account: TargetAccount,
    groupIds: readonly string[],
    confirmAbsent: readonly string[] = [],
  ): Promise<MembershipRead> {
    const confirm = new Set(confirmAbsent);
    const results = await Promise.all(
      groupIds.map((id) => this.readOne(account, id, confirm.has(id))),
    );
    return {
      groupIds: results.filter((r) => r.isMember).map((r) => r.groupId),
      names: Object.fromEntries(results.map((r) => [r.groupId, r.name])),
      notices: results.flatMap((r) => (r.notice === undefined ? [] : [r.notice])),
    };
  }

  /**
   * Removals first, then additions (spec: Membership write procedure, steps 2 and 3), one
   * PATCH per group. A failure after other writes got their answers carries those answers
   * (`details.written`): the journal must still get what was written.
   */
  async write(
    account: TargetAccount,
    changes: { add: readonly string[]; remove: readonly string[] },
    names: Record<string, string>,
  ): Promise<MembershipWriteAnswer[]> {
    const written: MembershipWriteAnswer[] = [];
    for (const [ids, change] of [
      [changes.remove, 'removed'],
      [changes.add, 'added'],
    ] as const) {
      const results = await Promise.allSettled(
        ids.map((id) => this.writeOne(account, id, names[id] ?? id, change)),
      );
      const failures: unknown[] = [];
      for (const result of results) {
        if (result.status === 'fulfilled') written.push(result.value);
        else failures.push(result.reason);
      }
      if (failures.length > 0) throw withWritten(failures[0], written);
    }
    return written;
  }

  /**
   * One group's membership (spec: GET /Groups/{id}). The member list shows a member; its
   * absence from the list is confirmed with the members filter where the caller needs a
   * verdict on it (`confirmAbsent`), since servers cut long member lists short.
   */
  private async readOne(
    account: TargetAccount,
    groupId: string,
    confirmAbsent: boolean,
  ): Promise<GroupMembership> {
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
    if (members?.includes(value) === true) return { groupId, name, isMember: true };
    if (members !== undefined && !confirmAbsent) return { groupId, name, isMember: false };
    const described = describeGroup({ id: groupId, displayName: name });
    if (members !== undefined) {
      // The list does not show the account: asked about this member itself.
      const isMember = await this.checkByFilter(groupId, name, value, 'confirm');
      return isMember === undefined
        ? {
            groupId,
            name,
            isMember: false,
            notice:
              `group ${described}: the server refuses the members filter, so "not a member" rests ` +
              `on the member list it returned, which it may cut short`,
          }
        : { groupId, name, isMember };
    }
    // No member list: an empty group (RFC 7643 omits unassigned attributes), a server that
    // never returns members, or a group too big to return (scim-interop.md).
    return {
      groupId,
      name,
      isMember: (await this.checkByFilter(groupId, name, value, 'only way')) === true,
      notice:
        `group ${described} came without a member list ` +
        `(empty, or the server does not return members): membership checked with a members filter`,
    };
  }

  /**
   * Entra's one-membership check (scim-interop.md): `id eq "g" and members eq "u"`. A server
   * that refuses the filter: undefined when the member list said something already
   * (`confirm`), MEMBERSHIP_READ_UNAVAILABLE when the filter was the only way to tell.
   */
  private async checkByFilter(
    groupId: string,
    name: string,
    value: string,
    need: 'confirm' | 'only way',
  ): Promise<boolean | undefined> {
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
      // Only a refusal of the filter itself says the server cannot answer it; refused
      // credentials, throttling or an outage say nothing about the filter and stay what they are.
      if (!isProvisioningError(error) || !FILTER_REFUSALS.has(error.code)) throw error;
      if (need === 'confirm') return undefined;
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

  /**
   * One PATCH on the group's `members`, judged by its own answer (DESIGN invariant 9): 409
   * on add and `noTarget` on remove say it was already so; 200 with the account among the
   * members shows an add; 200/204 otherwise only acknowledge.
   */
  private async writeOne(
    account: TargetAccount,
    groupId: string,
    groupName: string,
    change: 'added' | 'removed',
  ): Promise<MembershipWriteAnswer> {
    const value = this.memberValue(account);
    const body =
      change === 'added'
        ? addMemberPatch(value)
        : removeMemberPatch(value, this.settings.memberRemoveStyle);
    const context = this.groupContext(groupId, groupName, account.accountId);
    const result = await this.http.send({
      method: 'PATCH',
      url: scimUrl(this.settings.baseUrl, 'Groups', groupId),
      json: body,
      accept: change === 'added' ? [200, 204, 409] : [200, 204, 400],
      context,
    });
    const answer = { groupId, groupName, change, maybeOurs: result.maybeAppliedBefore };
    if (result.status === 400) {
      if (readScimType(result.body) !== 'noTarget') throw mapScimError(result, context);
      return { ...answer, outcome: 'already' };
    }
    if (result.status === 409) return { ...answer, outcome: 'already' };
    // A 200 that lists the account among the members shows the add. Absence shows nothing:
    // servers cap the members they return (scim-interop.md: groups too big to read whole), so
    // a removal is always read back (DESIGN invariant 11: no verdict from an absence).
    const members =
      result.status === 200 && change === 'added'
        ? readMemberValues((result.body ?? {}) as Record<string, unknown>)
        : undefined;
    return {
      ...answer,
      outcome: 'acknowledged',
      ...(members?.includes(value) === true ? { confirmedByWrite: true } : {}),
    };
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

/** The first failure, carrying the answers every other write got. */
function withWritten(failure: unknown, written: MembershipWriteAnswer[]): unknown {
  if (!isProvisioningError(failure)) return failure;
  return new ProvisioningError(failure.code, failure.message, {
    retryable: failure.retryable,
    ...(failure.status === undefined ? {} : { status: failure.status }),
    ...(failure.object === undefined ? {} : { object: failure.object }),
    details: { ...failure.details, written },
    cause: failure,
  });
}
