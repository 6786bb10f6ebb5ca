import { randomUUID } from 'node:crypto';
import { chunk } from '../../domain/chunk';
import type { HttpResult } from '../http/transport';
import { mapScimError, type ScimErrorContext } from './error-mapper';
import { quoteFilterValue } from './filter';
import { interpretListResponse, type ListPage } from './list-response';
import { readAllPages, type ListTally } from './pager';
import type { ScimHttp } from './scim-http';
import { scimUrl } from './scim-paths';

/**
 * How a server is asked whether an account is a member of some groups:
 * - `filter`: `GET /Groups?filter=id eq "g" and members eq "u"&attributes=id` (Entra's check,
 *   scim-interop.md), the answer a few bytes whatever the size of the group; `combine`: several
 *   groups in one call, `(id eq "a" or id eq "b") and members eq "u"`;
 * - `whole group`: `GET /Groups/{id}` with every member (the spec's read; the fallback).
 */
export type MembershipCheck =
  { kind: 'filter'; combine: boolean } | { kind: 'whole group'; why: string };

/** Groups asked about in one combined filter: short enough for any server's filter limits. */
const GROUPS_PER_FILTER = 10;

/**
 * The members filter for one account in some groups (RFC 7644 §3.4.2.2; values quoted and
 * escaped), under each of its member values (the forms a group may hold it in).
 *
 * @example
 * membersFilter(['g1', 'g2'], ['ada']); // '(id eq "g1" or id eq "g2") and members eq "ada"'
 * membersFilter(['g1'], ['ada', '2819c2']); // 'id eq "g1" and (members eq "ada" or members eq "2819c2")'
 */
export function membersFilter(
  groupIds: readonly string[],
  memberValues: readonly string[],
): string {
  return `${anyOf('id', groupIds)} and ${anyOf('members', memberValues)}`;
}

/** `name eq "a"`, or `(name eq "a" or name eq "b")`. */
function anyOf(name: string, values: readonly string[]): string {
  const clauses = values.map((value) => `${name} eq ${quoteFilterValue(value)}`);
  return clauses.length === 1 ? clauses[0]! : `(${clauses.join(' or ')})`;
}

/**
 * How servers refuse a filter or an attribute they do not support: 400 (invalidFilter,
 * invalidValue or none), 403, 501. Refused credentials, throttling or an outage say nothing
 * about the feature and stay what they are.
 */
export const FEATURE_REFUSALS: readonly number[] = [400, 403, 501];

/**
 * What a members filter answered: the groups it named (with their names), or a refusal.
 * `cutShort` says why the answer may not be whole (its "not a member" then proves nothing).
 */
type FilterAnswer = { groups: Map<string, string>; cutShort?: string } | { refused: HttpResult };

/** The groups a members filter found, and why its answer may be cut short (when it may). */
export interface MembersFound {
  groupIds: Set<string>;
  names: Record<string, string>;
  cutShort?: string;
}

/**
 * Decides once per connector (and worker) how memberships are checked, with a cheap probe at
 * first use: the members filter for a member value no account has, in the combined form and
 * else alone. A server that evaluates the filter answers no group (or 404); one that answers
 * the group ignores the member clause, and one that answers 400 refuses it: their
 * memberships are read from the whole group, as the spec's procedure reads them.
 *
 * The probe is a negative control only: a server whose filter matches no member at all
 * passes it. So the filter's "not a member" is believed ({@link absenceBelieved}) only once
 * the filter has shown this connector a member; until then a caller whose verdict rests on
 * an absence confirms it from the whole group, and a group that lists a member the filter
 * missed turns this connector to whole-group reads for good ({@link filterMissed}).
 */
export class MembershipChecks {
  private decided: MembershipCheck | undefined;
  private probing: Promise<MembershipCheck> | undefined;
  /** Whether the members filter has named a group for some member: its positive control. */
  private shownMember = false;

  constructor(
    private readonly http: ScimHttp,
    private readonly baseUrl: string,
    private readonly connector: string,
  ) {}

  /** The decision, once made (undefined before the first membership read). */
  get known(): MembershipCheck | undefined {
    return this.decided;
  }

  /**
   * Whether the members filter's "not a member" can be believed: it is the decision and has
   * shown this connector a member (any account, any group) since.
   */
  get absenceBelieved(): boolean {
    return this.decided?.kind === 'filter' && this.shownMember;
  }

  /**
   * A group lists `memberValue` although the members filter answered it was not a member:
   * the filter is blind to members, and this connector reads whole groups from now on.
   * Returns the decision in force (the first one made, when several reads found it at once).
   */
  filterMissed(
    group: string,
    memberValue: string,
  ): Extract<MembershipCheck, { kind: 'whole group' }> {
    if (this.decided?.kind !== 'whole group') {
      this.decided = {
        kind: 'whole group',
        why:
          `the members filter answered that "${memberValue}" is not a member of group ${group}, ` +
          `whose member list shows it: the server's filter misses members`,
      };
    }
    return this.decided;
  }

  /** The decision, probing with `groupId` at first use; a probe that fails is tried again next time. */
  async decide(groupId: string): Promise<MembershipCheck> {
    if (this.decided !== undefined) return this.decided;
    this.probing ??= this.probe(groupId).then(
      (decided) => {
        this.decided = decided;
        return decided;
      },
      (error: unknown) => {
        this.probing = undefined;
        throw error;
      },
    );
    return this.probing;
  }

  /**
   * The groups among `groupIds` whose members include any of `memberValues` (the forms a
   * group may hold the account in), by members filter: in one `or` where the server
   * evaluates `or` (the probe's combined form), else each value asked on its own. A refusal
   * fails the call (SCIM_FILTER_UNSUPPORTED and the like).
   */
  async memberOf(
    check: Extract<MembershipCheck, { kind: 'filter' }>,
    groupIds: readonly string[],
    memberValues: readonly string[],
  ): Promise<MembersFound> {
    const answer = await this.tryMemberOf(check, groupIds, memberValues);
    if ('refused' in answer) throw mapScimError(answer.refused, this.context(answer.asked));
    return answer;
  }

  /**
   * As {@link memberOf}, but a refusal of the filter comes back as the server's answer: a
   * server whose filter worked may refuse it later, under load or for some groups
   * (scim-interop.md), and the caller reads this call another way.
   */
  async tryMemberOf(
    check: Extract<MembershipCheck, { kind: 'filter' }>,
    groupIds: readonly string[],
    memberValues: readonly string[],
  ): Promise<MembersFound | { refused: HttpResult; asked: readonly string[] }> {
    const parts = check.combine
      ? chunk(groupIds, GROUPS_PER_FILTER).map((ids) => ({ ids, values: memberValues }))
      : groupIds.flatMap((id) => memberValues.map((value) => ({ ids: [id], values: [value] })));
    const names: Record<string, string> = {};
    let cutShort: string | undefined;
    const answers = await Promise.all(
      parts.map(async ({ ids, values }) => ({
        ids,
        answer: await this.ask(ids, values, 'id,displayName'),
      })),
    );
    for (const { ids, answer } of answers) {
      if ('refused' in answer) return { refused: answer.refused, asked: ids };
      for (const [id, name] of answer.groups) if (ids.includes(id)) names[id] = name;
      cutShort ??= answer.cutShort;
    }
    if (Object.keys(names).length > 0) this.shownMember = true;
    return {
      groupIds: new Set(Object.keys(names)),
      names,
      ...(cutShort === undefined ? {} : { cutShort }),
    };
  }

  private async probe(groupId: string): Promise<MembershipCheck> {
    const nobody = `membership-probe-${randomUUID()}`;
    const combined = await this.ask([groupId, groupId], [nobody], 'id');
    if ('groups' in combined && combined.groups.size === 0) {
      return { kind: 'filter', combine: true };
    }
    const single = 'groups' in combined ? combined : await this.ask([groupId], [nobody], 'id');
    if ('groups' in single && single.groups.size === 0) return { kind: 'filter', combine: false };
    return {
      kind: 'whole group',
      why:
        'groups' in single
          ? `the server answered the members filter with group ${groupId} for a member no account has: it ignores the member clause`
          : `the server refuses the members filter (${single.refused.status})`,
    };
  }

  /**
   * The groups a members filter answers, asked as pages of as many as the groups asked (no
   * more can match). A page that holds them all is the whole answer, and so is an empty one.
   * Any page between may be a server's capped page (scim-interop.md: `count` capped), and a
   * server that counts only the page it answers (`totalResults` no more than it holds) cannot
   * be told from an honest one: the answer is read on past its `totalResults` ({@link
   * readAllPages}), to an empty page. An answer whose end was not seen (a page past the
   * total refused, pages repeated) says so in `cutShort`: its "not a member" proves nothing.
   */
  private async ask(
    groupIds: readonly string[],
    memberValues: readonly string[],
    attributes: string,
  ): Promise<FilterAnswer> {
    const first = await this.askPage(groupIds, memberValues, attributes);
    if ('refused' in first) return first;
    const held = first.resources.length;
    const counted = (first.totalResults ?? 0) > held;
    const mayBeCapped = held > 0 && held < groupIds.length && !counted;
    let resources: AsyncIterable<Record<string, unknown>> | Record<string, unknown>[] =
      first.resources;
    const tally: ListTally = { read: 0, probePastTotal: mayBeCapped };
    /** Whether the last page read held nothing: the answer's end was seen. */
    let endSeen = !mayBeCapped;
    if (counted || mayBeCapped) {
      resources = readAllPages(
        async (startIndex) => {
          if (startIndex === 1) return first;
          const next = await this.askPage(groupIds, memberValues, attributes, startIndex);
          if ('refused' in next) throw mapScimError(next.refused, this.context(groupIds));
          endSeen = next.resources.length === 0;
          return next;
        },
        `connector "${this.connector}": the members of groups ${groupIds.join(', ')}`,
        tally,
        groupIds.length,
      );
    }
    const groups = new Map<string, string>();
    for await (const resource of resources) {
      if (typeof resource.id !== 'string') continue;
      const name = typeof resource.displayName === 'string' ? resource.displayName : resource.id;
      groups.set(resource.id, name);
    }
    const whole =
      groupIds.every((id) => groups.has(id)) ||
      (tally.pastTotalRefused === undefined &&
        (endSeen ||
          (tally.pastTotal === undefined && tally.read >= (tally.lastTotal ?? Infinity))));
    if (whole) return { groups };
    const cutShort =
      tally.pastTotalRefused === undefined
        ? `the members filter's answer for groups ${groupIds.join(', ')} may be cut short: the server's pages ended without an empty one after ${tally.read}`
        : `the members filter's answer for groups ${groupIds.join(', ')} may be cut short: the server refused a page past its totalResults (${tally.pastTotalRefused})`;
    return { groups, cutShort };
  }

  /**
   * One page of a members filter's answer, of as many as the groups asked (the first without
   * `startIndex`); 404 is none.
   */
  private async askPage(
    groupIds: readonly string[],
    memberValues: readonly string[],
    attributes: string,
    startIndex?: number,
  ): Promise<ListPage | { refused: HttpResult }> {
    const paging = { ...(startIndex === undefined ? {} : { startIndex }), count: groupIds.length };
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.baseUrl, 'Groups', undefined, {
        filter: membersFilter(groupIds, memberValues),
        attributes,
        ...paging,
      }),
      // scim-interop.md: some servers answer an empty filter with 404.
      accept: [200, 404, ...FEATURE_REFUSALS],
      context: this.context(groupIds),
    });
    if (FEATURE_REFUSALS.includes(result.status)) return { refused: result };
    if (result.status === 404) return { resources: [] };
    return interpretListResponse(result.body, result.describe);
  }

  private context(groupIds: readonly string[]): ScimErrorContext {
    return {
      connector: this.connector,
      subject: `the members of groups ${groupIds.join(', ')}`,
      notFound: 'SCIM_REQUEST_REJECTED',
      object: groupIds.join(', '),
    };
  }
}
