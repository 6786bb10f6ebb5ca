import { isProvisioningError } from '../../domain/errors';
import type {
  AccountFact,
  FactPage,
  MembershipFact,
  ReconciliationReads,
} from '../../domain/reconciliation-reads';
import type { AccountRecheck, MemberKind, RecheckItem, ViewMember } from '../../domain/target-view';
import { sendBatch, type BatchRequest, type BatchResponse } from './graph-batch';
import { errorContext, type GraphContext } from './graph-context';
import { deltaRoundPages } from './graph-delta';
import { GROUP_ODATA_TYPE, isRecord, readString, type GraphObject } from './graph-objects';
import { batchOptions } from './graph-groups';
import { readPage } from './graph-http';
import { odataString, segment } from './graph-urls';
import { toUserPrincipalName } from './graph-user-payload';
import { PagingGuard } from './paging-guard';

/** Graph's group delta: at most 50 ids in `$filter=id eq ... or ...`. */
const MAX_FILTERED_GROUPS = 50;
const USER_PROPERTIES = 'id,userPrincipalName,displayName,accountEnabled';

/**
 * Connector B's reads for reconciliation (issue 18), on Graph's delta queries
 * (graph-behaviour.md: Batching and incremental reads): `groups/delta?$select=members` for the
 * managed groups' direct members (narrowed by `$filter=id eq` to the managed groups when they
 * are 50 or fewer: one filter then reads no other group), `users/delta` for the accounts'
 * `accountEnabled`, both in full on a first run and from the saved delta links after; and
 * second reads of single accounts, 20 to a `$batch`.
 */
export function graphReconciliation(context: GraphContext): ReconciliationReads {
  return {
    incremental: true,
    sources: {
      members: 'GET /groups/delta?$select=members',
      accounts: `GET /users/delta?$select=${USER_PROPERTIES}`,
      recheck: 'GET /users/{id} and /users/{id}/memberOf (in $batch)',
    },
    memberKeys: (account) => [account.targetId],
    memberValue: (account) => account.targetId,
    accountName: (accountId) => toUserPrincipalName(accountId, context.settings.upnDomain),
    readMembers: (groupIds, cursor) => readMembers(context, groupIds, cursor),
    readAccounts: (cursor) => readAccounts(context, cursor),
    recheck: (items) => recheck(context, items),
  };
}

async function* readMembers(
  context: GraphContext,
  groupIds: readonly string[],
  cursor: string | undefined,
): AsyncGenerator<FactPage<MembershipFact>> {
  const narrow = groupIds.length > 0 && groupIds.length <= MAX_FILTERED_GROUPS;
  const start =
    cursor !== undefined
      ? { method: 'GET' as const, path: cursor }
      : {
          method: 'GET' as const,
          path: '/groups/delta',
          query: {
            $select: 'members',
            ...(narrow
              ? { $filter: groupIds.map((id) => `id eq ${odataString(id)}`).join(' or ') }
              : {}),
          },
        };
  const pages = deltaRoundPages(context, start, {
    collection: 'groups',
    job: 'reconciliation',
    errors: errorContext(context, 'readGroups', 'the managed groups', context.settings.name),
  });
  for await (const page of pages) {
    const facts = page.value.flatMap((item) => membershipFacts(item, cursor !== undefined));
    yield page.deltaLink === undefined ? { facts } : { facts, cursor: page.deltaLink };
  }
}

/** One item of a group delta round as facts: a whole member list (a part of it), or changes. */
function membershipFacts(item: GraphObject, incremental: boolean): MembershipFact[] {
  const groupId = readString(item, 'id');
  if (groupId === undefined) return [];
  if (item['@removed'] !== undefined) return [{ kind: 'groupGone', groupId }];
  const listed = Array.isArray(item['members@delta']) ? item['members@delta'].filter(isRecord) : [];
  if (!incremental) {
    const members = listed.flatMap((member): [string, ViewMember][] => {
      const id = readString(member, 'id');
      return id === undefined || member['@removed'] !== undefined ? [] : [[id, viewMember(member)]];
    });
    return [{ kind: 'members', groupId, members }];
  }
  return listed.flatMap((member): MembershipFact[] => {
    const key = readString(member, 'id');
    if (key === undefined) return [];
    return [
      {
        kind: 'member',
        groupId,
        key,
        member: viewMember(member),
        added: member['@removed'] === undefined,
      },
    ];
  });
}

function viewMember(member: GraphObject): ViewMember {
  const type = readString(member, '@odata.type');
  const kind: MemberKind =
    type === '#microsoft.graph.user' ? 'user' : type === GROUP_ODATA_TYPE ? 'group' : 'other';
  return { kind };
}

async function* readAccounts(
  context: GraphContext,
  cursor: string | undefined,
): AsyncGenerator<FactPage<AccountFact>> {
  const start =
    cursor !== undefined
      ? { method: 'GET' as const, path: cursor }
      : { method: 'GET' as const, path: '/users/delta', query: { $select: USER_PROPERTIES } };
  const pages = deltaRoundPages(context, start, {
    collection: 'users',
    job: 'reconciliation',
    errors: errorContext(context, 'readAccounts', 'the accounts', context.settings.name),
  });
  for await (const page of pages) {
    const facts = page.value.flatMap((user): AccountFact[] => {
      const id = readString(user, 'id');
      if (id === undefined) return [];
      if (user['@removed'] !== undefined) return [{ kind: 'accountGone', id }];
      return [{ kind: 'account', account: toViewAccount(id, user) }];
    });
    yield page.deltaLink === undefined ? { facts } : { facts, cursor: page.deltaLink };
  }
}

function toViewAccount(id: string, user: GraphObject) {
  const name = readString(user, 'userPrincipalName');
  const enabled = user['accountEnabled'];
  return {
    id,
    key: id,
    ...(name === undefined ? {} : { name }),
    ...(typeof enabled === 'boolean' ? { enabled } : {}),
  };
}

/**
 * Second reads, 20 sub-requests to a `$batch`: `GET /users/{id}` for existence and state,
 * `GET /users/{id}/memberOf` for direct groups (filtered to groups by `@odata.type`, further
 * pages read by their links). What a failed or throttled sub-request could not tell stays
 * unknown, with the answer in `unread`.
 */
async function recheck(
  context: GraphContext,
  items: readonly RecheckItem[],
): Promise<AccountRecheck[]> {
  const requests: BatchRequest[] = [];
  items.forEach((item, index) => {
    const user = `/users/${segment(item.targetId)}`;
    if (item.account) {
      requests.push({ id: `a${index}`, method: 'GET', url: `${user}?$select=${USER_PROPERTIES}` });
    }
    if (item.groupIds.length > 0) {
      requests.push({
        id: `m${index}`,
        method: 'GET',
        url: `${user}/memberOf?$select=id&$top=999`,
      });
    }
  });
  const responses =
    requests.length === 0
      ? new Map<string, BatchResponse>()
      : await sendBatch(
          context.http,
          requests,
          batchOptions(context),
          errorContext(context, 'readAccounts', 'accounts to confirm', context.settings.name),
        );
  return Promise.all(
    items.map((item, index) =>
      recheckOf(context, item, responses.get(`a${index}`), responses.get(`m${index}`)),
    ),
  );
}

async function recheckOf(
  context: GraphContext,
  item: RecheckItem,
  user: BatchResponse | undefined,
  memberOf: BatchResponse | undefined,
): Promise<AccountRecheck> {
  const result: AccountRecheck = { targetId: item.targetId, memberOf: {}, evidence: [] };
  const unread: string[] = [];
  if (user !== undefined) {
    result.evidence.push(`${user.describe}: ${user.status}`);
    if (user.status === 200 && isRecord(user.body)) {
      const account = toViewAccount(item.targetId, user.body);
      result.exists = true;
      if (account.enabled !== undefined) result.enabled = account.enabled;
      if (account.name !== undefined) result.name = account.name;
    } else if (user.status === 404) result.exists = false;
    else unread.push(`${user.describe} answered ${user.status}`);
  }
  if (memberOf !== undefined) {
    result.evidence.push(`${memberOf.describe}: ${memberOf.status}`);
    if (memberOf.status === 200) {
      const groups = await directGroups(context, memberOf);
      if (groups === undefined)
        unread.push(`${memberOf.describe}: a further page could not be read`);
      else for (const id of item.groupIds) result.memberOf[id] = groups.has(id);
    } else if (memberOf.status === 404) result.exists = false;
    else unread.push(`${memberOf.describe} answered ${memberOf.status}`);
  }
  if (unread.length > 0) result.unread = unread.join('; ');
  return result;
}

/** The group ids of a memberOf answer, its further pages read; undefined when one fails. */
async function directGroups(
  context: GraphContext,
  first: BatchResponse,
): Promise<Set<string> | undefined> {
  const groups = new Set<string>();
  const errors = errorContext(context, 'readAccountGroups', first.describe, context.settings.name);
  const guard = new PagingGuard(errors);
  let page = readPage(first.body, first.describe);
  for (;;) {
    for (const object of page.value) {
      const id = readString(object, 'id');
      if (id !== undefined && object['@odata.type'] === GROUP_ODATA_TYPE) groups.add(id);
    }
    if (page.nextLink === undefined) return groups;
    try {
      guard.follow(page.value.length, page.nextLink);
      const next = await context.http.expect({ method: 'GET', path: page.nextLink }, [200], errors);
      page = readPage(next.body, next.describe);
    } catch (error) {
      if (isProvisioningError(error)) return undefined;
      throw error;
    }
  }
}
