import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import type {
  AccountFact,
  FactPage,
  MembershipFact,
  ReconciliationReads,
} from '../../domain/reconciliation-reads';
import type { AccountRecheck, RecheckItem, ViewMember } from '../../domain/target-view';
import { quoteFilterValue } from './filter';
import { interpretListResponse } from './list-response';
import { incompleteness, readAllPages, type ListTally } from './pager';
import type { ScimHttp } from './scim-http';
import type { MembershipChecks } from './membership-check';
import { memberValueForms, memberValueKey } from './member-value-forms';
import { memberValueOf, readMemberValues } from './scim-memberships';
import { scimUrl } from './scim-paths';
import type { ScimConnectorSettings } from './scim-settings';
import { readActive } from './user-mapping';

/** Groups read at once, and facts per page handed on: memory stays bounded by these. */
const GROUPS_PER_PAGE = 50;
const ACCOUNTS_PER_PAGE = 500;
/** How a server refuses a filter it does not support (scim-interop.md): no answer from it. */
const REFUSED_FILTER = new Set([
  'SCIM_FILTER_UNSUPPORTED',
  'SCIM_INVALID_VALUE',
  'SCIM_REQUEST_REJECTED',
]);

/**
 * Connector A's reads for reconciliation (issue 18). SCIM has no change tracking, so every
 * run reads whole: each managed group's members (`GET /Groups/{id}?attributes=members`; a
 * group without a member list is asked whether it has members at all, `members pr`, since
 * RFC 7643 omits an empty list), and every user in pages (`attributes=id,userName,active`).
 * Second reads ask the server about one member itself (`id eq "g" and members eq "u"`, as
 * Entra does), since servers cut long member lists short (scim-interop.md).
 */
export function scimReconciliation(
  settings: ScimConnectorSettings,
  http: ScimHttp,
  checks: MembershipChecks,
): ReconciliationReads {
  const reads = new ScimReconciliationReads(settings, http, checks);
  return {
    incremental: false,
    sources: {
      members: 'GET /Groups/{id}?attributes=members',
      accounts: 'GET /Users?attributes=id,userName,active (every page)',
      recheck: 'GET /Users/{id} and GET /Groups?filter=id eq "g" and members eq "u"',
    },
    // Member lists are compared as the request path compares them: without case, in either
    // form a group may hold the account in; the second read asks about the value as written
    // (a server may compare it exactly).
    memberKeys: (account) =>
      memberValueForms(account.accountId, account.targetId, settings.memberValue).map(
        memberValueKey,
      ),
    memberValue: (account) =>
      memberValueOf(settings, { accountId: account.accountId, id: account.targetId }),
    accountName: (accountId) => accountId,
    readMembers: (groupIds) => reads.readMembers(groupIds),
    readAccounts: () => reads.readAccounts(),
    recheck: (items) => reads.recheck(items),
  };
}

class ScimReconciliationReads {
  constructor(
    private readonly settings: ScimConnectorSettings,
    private readonly http: ScimHttp,
    private readonly checks: MembershipChecks,
  ) {}

  async *readMembers(groupIds: readonly string[]): AsyncGenerator<FactPage<MembershipFact>> {
    for (let start = 0; start < groupIds.length; start += GROUPS_PER_PAGE) {
      const part = groupIds.slice(start, start + GROUPS_PER_PAGE);
      yield { facts: await Promise.all(part.map((id) => this.readGroup(id))) };
    }
  }

  async *readAccounts(): AsyncGenerator<FactPage<AccountFact>> {
    const tally: ListTally = { read: 0, probePastTotal: true };
    const describe = `connector "${this.settings.name}": accounts`;
    const resources = readAllPages(
      async (startIndex) => {
        const result = await this.http.send({
          method: 'GET',
          url: scimUrl(this.settings.baseUrl, 'Users', undefined, {
            attributes: 'id,userName,active',
            startIndex,
            count: this.settings.pageSize,
          }),
          accept: [200],
          context: this.context('the accounts', this.settings.name),
        });
        return interpretListResponse(result.body, result.describe);
      },
      describe,
      tally,
      this.settings.pageSize,
    );
    let facts: AccountFact[] = [];
    for await (const resource of resources) {
      const id = typeof resource.id === 'string' ? resource.id : undefined;
      const userName = typeof resource.userName === 'string' ? resource.userName : undefined;
      if (id === undefined || userName === undefined) continue;
      const enabled = readActive(resource);
      facts.push({
        kind: 'account',
        account: {
          id,
          key: this.memberValue(userName, id),
          name: userName,
          ...(enabled === undefined ? {} : { enabled }),
        },
      });
      if (facts.length >= ACCOUNTS_PER_PAGE) {
        yield { facts };
        facts = [];
      }
    }
    // A list that changed under the read may have moved accounts past its pages: the run
    // says so (incomplete) rather than "no drift" for accounts it never saw.
    const cut = incompleteness(tally);
    if (cut !== undefined && tally.firstTotal !== undefined && tally.lastTotal !== undefined) {
      throw new ProvisioningError('TARGET_RESPONSE_INVALID', `${describe}: ${cut}`, {
        details: { ...tally },
      });
    }
    yield { facts };
  }

  async recheck(items: readonly RecheckItem[]): Promise<AccountRecheck[]> {
    const groups = new Map<string, Promise<Set<string> | undefined>>();
    const listed = (groupId: string) => {
      let read = groups.get(groupId);
      if (read === undefined) {
        read = this.listedMembers(groupId);
        groups.set(groupId, read);
      }
      return read;
    };
    return Promise.all(
      items.map((item) =>
        this.recheckOne(item, listed).catch((error: unknown): AccountRecheck => {
          if (!isProvisioningError(error)) throw error;
          return {
            targetId: item.targetId,
            memberOf: {},
            evidence: [],
            unread: `${error.code}: ${error.message}`,
          };
        }),
      ),
    );
  }

  private async recheckOne(
    item: RecheckItem,
    listed: (groupId: string) => Promise<Set<string> | undefined>,
  ): Promise<AccountRecheck> {
    const result: AccountRecheck = { targetId: item.targetId, memberOf: {}, evidence: [] };
    const unread: string[] = [];
    if (item.account) {
      const answer = await this.http.send({
        method: 'GET',
        url: scimUrl(this.settings.baseUrl, 'Users', item.targetId, {
          attributes: 'id,userName,active',
        }),
        accept: [200, 404],
        context: this.context(`account ${item.targetId}`, item.targetId),
      });
      result.evidence.push(`${answer.describe}: ${answer.status}`);
      const user = (answer.body ?? {}) as Record<string, unknown>;
      // Another user's answer (a caching proxy, a broken server) tells nothing of this one:
      // the account is left unread, never judged by it (`id` is returned always, RFC 7643).
      if (answer.status === 200 && user.id !== item.targetId) {
        throw new ProvisioningError(
          'TARGET_RESPONSE_INVALID',
          `${answer.describe} answered user ${JSON.stringify(user.id ?? null)} for user "${item.targetId}"`,
          { object: item.targetId, details: { asked: item.targetId, answered: String(user.id) } },
        );
      }
      result.exists = answer.status === 200;
      const enabled = readActive(user);
      if (enabled !== undefined) result.enabled = enabled;
      if (typeof user.userName === 'string') result.name = user.userName;
    }
    // A group may hold the account under its SCIM id as well as under the configured form
    // (RFC 7643's members.value is the id; a lax server takes both): either is a membership.
    const values = [
      item.key,
      item.targetId,
      ...(item.name === undefined ? [] : [item.name]),
      ...(result.name === undefined ? [] : [result.name]),
    ].filter(
      (value, index, all) =>
        all.findIndex((v) => memberValueKey(v) === memberValueKey(value)) === index,
    );
    const named = values.map((value) => `"${value}"`).join(' or ');
    for (const groupId of item.groupIds) {
      const member = await this.memberByFilter(groupId, values);
      const asked = `GET /Groups?filter=id eq "${groupId}" and ${values.map((v) => `members eq "${v}"`).join(' or ')}`;
      // The filter's "not a member" is believed once it has shown a member (membership-check.ts).
      if (member === true || (member === false && this.checks.absenceBelieved)) {
        result.memberOf[groupId] = member;
        result.evidence.push(
          `${asked}: ${member ? 'a member' : 'not a member'} (the server evaluates the members filter)`,
        );
        continue;
      }
      // The member list shows a member; its absence may be a list cut short.
      const members = await listed(groupId);
      const shown = values.find((value) => members?.has(memberValueKey(value)) === true);
      if (shown !== undefined) {
        if (member === false) this.checks.filterMissed(groupId, shown);
        result.memberOf[groupId] = true;
        result.evidence.push(`GET /Groups/${groupId}?attributes=members: lists "${shown}"`);
      } else if (member === false) {
        // Two answers agree, or the filter's stands alone where the group lists no members.
        result.memberOf[groupId] = false;
        result.evidence.push(
          `${asked}: not a member; ${members === undefined ? 'the group returns no member list to confirm it' : 'the member list agrees'}`,
        );
      } else {
        unread.push(
          `group ${groupId}: the server cannot be asked by the members filter and its member list, which it may cut short, does not show ${named}`,
        );
      }
    }
    if (unread.length > 0) result.unread = unread.join('; ');
    return result;
  }

  /**
   * One group's members. No member list: RFC 7643 omits an empty one, and some servers never
   * return members (scim-interop.md), so `members pr` tells the two apart.
   */
  private async readGroup(groupId: string): Promise<MembershipFact> {
    try {
      return await this.readGroupOnce(groupId);
    } catch (error) {
      // One group unread: the run says so, and concludes nothing about it.
      if (!isProvisioningError(error)) throw error;
      return { kind: 'groupUnread', groupId, reason: `${error.code}: ${error.message}` };
    }
  }

  private async readGroupOnce(groupId: string): Promise<MembershipFact> {
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.settings.baseUrl, 'Groups', groupId, { attributes: 'members' }),
      accept: [200, 404],
      context: this.context(`group ${groupId}`, groupId),
    });
    if (result.status === 404) return { kind: 'groupGone', groupId };
    const group = (result.body ?? {}) as Record<string, unknown>;
    const values = readMemberValues(group);
    if (values !== undefined) {
      return { kind: 'members', groupId, members: this.membersOf(group) };
    }
    const hasMembers = await this.hasMembers(groupId);
    if (hasMembers === false) return { kind: 'members', groupId, members: [] };
    return {
      kind: 'groupUnread',
      groupId,
      reason:
        hasMembers === true
          ? 'the server does not list its members'
          : 'the server lists no members and refuses the filter that would tell whether it has any',
    };
  }

  private membersOf(group: Record<string, unknown>): [string, ViewMember][] {
    const key = Object.keys(group).find((name) => name.toLowerCase() === 'members');
    const members = key === undefined ? [] : (group[key] as unknown[]);
    return members.flatMap((entry): [string, ViewMember][] => {
      const member = (entry ?? {}) as { value?: unknown; display?: unknown; type?: unknown };
      if (typeof member.value !== 'string') return [];
      const type = typeof member.type === 'string' ? member.type.toLowerCase() : 'user';
      const name =
        typeof member.display === 'string'
          ? member.display
          : this.settings.memberValue === 'accountId'
            ? member.value
            : undefined;
      return [
        [
          memberValueKey(member.value),
          { kind: type === 'group' ? 'group' : 'user', ...(name === undefined ? {} : { name }) },
        ],
      ];
    });
  }

  private async listedMembers(groupId: string): Promise<Set<string> | undefined> {
    const fact = await this.readGroup(groupId);
    return fact.kind === 'members' ? new Set(fact.members.map(([key]) => key)) : undefined;
  }

  /** `id eq "g" and members pr`: whether the group has members; undefined when refused. */
  private hasMembers(groupId: string): Promise<boolean | undefined> {
    return this.groupFilter(groupId, `id eq ${quoteFilterValue(groupId)} and members pr`);
  }

  /**
   * Whether the member is in the group, asked of the server itself where the membership
   * checks found that it evaluates the members filter (the same probe as every membership
   * read: a server that ignores the member clause would name the group for anyone);
   * undefined where it cannot be asked.
   */
  private async memberByFilter(
    groupId: string,
    values: readonly string[],
  ): Promise<boolean | undefined> {
    const check = await this.checks.decide(groupId);
    if (check.kind !== 'filter') return undefined;
    return (await this.checks.memberOf(check, [groupId], values)).groupIds.has(groupId);
  }

  private async groupFilter(groupId: string, filter: string): Promise<boolean | undefined> {
    try {
      const result = await this.http.send({
        method: 'GET',
        url: scimUrl(this.settings.baseUrl, 'Groups', undefined, { filter, attributes: 'id' }),
        accept: [200, 404],
        context: this.context(`group ${groupId}`, groupId),
      });
      if (result.status === 404) return false;
      const page = interpretListResponse(result.body, result.describe);
      return page.resources.some((resource) => resource.id === groupId);
    } catch (error) {
      // A refused filter says nothing; a throttled or failed read is the run's problem.
      if (isProvisioningError(error) && REFUSED_FILTER.has(error.code)) return undefined;
      throw error;
    }
  }

  /** The key member lists name the account by ({@link memberValueKey}). */
  private memberValue(userName: string, id: string): string {
    return memberValueKey(memberValueOf(this.settings, { accountId: userName, id }));
  }

  private context(subject: string, object: string) {
    return {
      connector: this.settings.name,
      subject,
      notFound: 'SCIM_REQUEST_REJECTED' as const,
      object,
    };
  }
}
