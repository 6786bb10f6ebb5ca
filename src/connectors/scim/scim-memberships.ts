import type { ScimConnectorSettings } from './scim-settings';
import type { TargetAccount } from '../../domain/account';
import { ProvisioningError, isProvisioningError } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import { silentLogger, type Logger } from '../../domain/logger';
import type { UserGroupsVerdicts } from '../../domain/user-groups-verdict';
import { mayHaveBeenApplied } from '../../domain/lost-answer';
import type { MembershipRead, MembershipWriteAnswer } from '../connector';
import { failedWriteCall, type FailedWrite } from '../failed-writes';
import { mapScimError, readScimType, type ScimErrorContext } from './error-mapper';
import { addMemberPatch, removeMemberPatch } from './patch-op';
import type { ScimHttp } from './scim-http';
import { MembershipChecks, type MembershipCheck } from './membership-check';
import { scimUrl } from './scim-paths';
import { heldAs, memberValueForms } from './member-value-forms';
import { UserGroupsCheck } from './user-groups-check';
import { readWholeGroups, type WholeGroupSource } from './whole-group-reads';

/**
 * Connector A's memberships: read before writing (spec: Read group members before writing),
 * write deltas with PATCH `add`/`remove` on `members` (other members untouched), and judge
 * each write by its own answer where it carries the members. A membership is checked with
 * the members filter where the server evaluates it (a few bytes, however big the group:
 * {@link MembershipChecks}), else by reading the whole group.
 */
export class ScimMemberships {
  /** How this server is asked about memberships: decided once, shared with reconciliation. */
  readonly checks: MembershipChecks;
  /** Whole-group reads, and the user's groups attribute that vouches where they cannot. */
  private readonly wholeGroups: WholeGroupSource;

  constructor(
    private readonly settings: ScimConnectorSettings,
    private readonly http: ScimHttp,
    private readonly logger: Logger = silentLogger,
    verdicts?: UserGroupsVerdicts,
  ) {
    this.checks = new MembershipChecks(http, settings.baseUrl, settings.name);
    this.wholeGroups = {
      connector: settings.name,
      readGroup: (groupId) => this.readGroupMembers(groupId, groupId),
      memberValues: (account) => this.memberValues(account),
      userGroups: new UserGroupsCheck(http, settings.baseUrl, settings.name, verdicts, logger),
    };
  }

  /** How memberships are checked on this server, once the first read decided it. */
  get membershipCheck(): MembershipCheck | undefined {
    return this.checks.known;
  }

  /** The member value an addition writes: the account ID by default (spec: Groups). */
  memberValue(account: TargetAccount): string {
    return memberValueOf(this.settings, account);
  }

  /** Every form a group may hold the account in, the one additions write first. */
  private memberValues(account: TargetAccount): string[] {
    return memberValueForms(account.accountId, account.id, this.settings.memberValue);
  }

  /**
   * `vouchedBefore`: an earlier read of the same step, perhaps in a worker since restarted,
   * believed the members filter's "not a member" (`MembershipRead.absenceVouched`): the
   * filter had shown a member there, and its positive control holds for this read as well.
   */
  async read(
    account: TargetAccount,
    groupIds: readonly string[],
    confirmAbsent: readonly string[] = [],
    vouchedBefore = false,
  ): Promise<MembershipRead> {
    if (groupIds.length === 0) return { groupIds: [], names: {}, notices: [] };
    const known = this.checks.known;
    const check = known ?? (await this.checks.decide(groupIds[0]!));
    if (known === undefined) {
      this.logger.info(
        check.kind === 'filter'
          ? `connector ${this.settings.name}: memberships are checked with the members filter`
          : `connector ${this.settings.name}: memberships are read from the whole group: ${check.why}`,
        { connector: this.settings.name },
      );
    }
    if (check.kind === 'filter') {
      return this.readByFilter(check, account, groupIds, confirmAbsent, vouchedBefore);
    }
    return this.readWholeGroups(account, groupIds, confirmAbsent, check.why);
  }

  /**
   * The server's own answer about this member in each group (DESIGN invariant 11). Until
   * the filter has shown this connector a member (in this worker, or in an earlier read of
   * the step: `vouchedBefore`), its "not a member" in a `confirmAbsent` group is checked
   * against the group's member list: a filter that missed a listed member is blind, and the
   * read is made again from whole groups, as every later one is. A read whose "not a member"
   * was believed says so (`absenceVouched`), for the step's later reads.
   */
  private async readByFilter(
    check: Extract<MembershipCheck, { kind: 'filter' }>,
    account: TargetAccount,
    groupIds: readonly string[],
    confirmAbsent: readonly string[],
    vouchedBefore: boolean,
  ): Promise<MembershipRead> {
    const values = this.memberValues(account);
    const found = await this.checks.tryMemberOf(check, groupIds, values);
    if ('refused' in found) {
      // The filter worked when it was decided on; this call is read another way.
      const status = found.refused.status;
      const scimType = readScimType(found.refused.body);
      const why = `the server refused the members filter for this read (${status}${scimType === undefined ? '' : ` ${scimType}`})`;
      this.logger.warn(`connector ${this.settings.name}: ${why}: read from the whole group`, {
        connector: this.settings.name,
      });
      const read = await this.readWholeGroups(account, groupIds, confirmAbsent, why);
      return { ...read, notices: [`${why}: read from the whole group instead`, ...read.notices] };
    }
    const names = { ...found.names };
    const asked = new Set(groupIds);
    // An answer that may be cut short vouches for no absence, whatever the filter has shown.
    const whole = found.cutShort === undefined;
    const believed = whole && (this.checks.absenceBelieved || vouchedBefore);
    const unconfirmed = believed
      ? []
      : confirmAbsent.filter((id) => asked.has(id) && !found.groupIds.has(id));
    const confirmations = await Promise.all(unconfirmed.map((id) => this.readGroupMembers(id, id)));
    const notices: string[] = found.cutShort === undefined ? [] : [found.cutShort];
    const unproven: string[] = [];
    let missed: { group: string; value: string } | undefined;
    // The user's own groups, asked once where no list shows the account (RFC 7643 §4.1.2).
    const userGroups = confirmations.some((listed) => heldAs(listed.members, values) === undefined)
      ? await this.wholeGroups.userGroups.read(account)
      : undefined;
    // Groups the filter found vouch for the user's groups, as member lists do.
    const silence =
      userGroups === undefined
        ? undefined
        : await this.wholeGroups.userGroups.silenceOf(
            userGroups,
            found.groupIds,
            names,
            account.accountId,
          );
    for (const [index, listed] of confirmations.entries()) {
      const groupId = unconfirmed[index]!;
      names[groupId] ??= listed.name;
      const described = describeGroup({ id: groupId, displayName: listed.name });
      const shown = heldAs(listed.members, values);
      if (shown !== undefined) {
        missed ??= { group: described, value: shown };
        continue;
      }
      if (userGroups !== undefined && 'groupIds' in userGroups) {
        // The user's groups list one the filter said it is not in: the filter misses members,
        // as when a member list shows the account.
        if (userGroups.groupIds.has(groupId)) {
          missed ??= { group: described, value: values[0]! };
          continue;
        }
        // Its silence vouches only where the list is known complete.
        if (silence === undefined) continue;
      }
      // Neither a filter not yet seen to find anyone nor a list the server may cut short
      // vouches for the absence.
      unproven.push(groupId);
      if (userGroups !== undefined && 'groupIds' in userGroups) {
        notices.push(
          `group ${described}: "not a member" rests on the members filter alone, which has not ` +
            `yet shown this connector a member, and ${silence}`,
        );
      } else if (listed.members === undefined) {
        notices.push(
          `group ${described}: "not a member" rests on the members filter alone, which has not ` +
            `yet shown this connector a member, and the group returns no member list to confirm it`,
        );
      }
    }
    if (missed !== undefined) {
      const { why } = this.checks.filterMissed(missed.group, missed.value);
      this.logger.warn(
        `connector ${this.settings.name}: memberships are read from the whole group from now on: ${why}`,
        { connector: this.settings.name },
      );
      const read = await this.readWholeGroups(account, groupIds, confirmAbsent, why);
      const switched = `memberships are read from the whole group from now on: ${why}`;
      return { ...read, notices: [switched, ...read.notices] };
    }
    const now = this.checks.known;
    // Found blind by another read while this one was asking: its answer is worth nothing.
    if (now?.kind === 'whole group') {
      return this.readWholeGroups(account, groupIds, confirmAbsent, now.why);
    }
    return {
      groupIds: groupIds.filter((id) => found.groupIds.has(id)),
      names,
      notices,
      ...(unproven.length === 0 ? {} : { unproven }),
      ...(whole && (believed || this.checks.absenceBelieved)
        ? { absenceVouched: true as const }
        : {}),
    };
  }

  private readWholeGroups(
    account: TargetAccount,
    groupIds: readonly string[],
    confirmAbsent: readonly string[],
    why: string,
  ): Promise<MembershipRead> {
    return readWholeGroups(this.wholeGroups, account, groupIds, confirmAbsent, why);
  }

  /**
   * Removals first, then additions (spec: Membership write procedure, steps 2 and 3), one
   * PATCH per group. A failure carries the answers the other writes got (`details.written`:
   * the journal must still get what was written) and each failed write, refused or maybe
   * applied (`details.failed`, failed-writes.ts): only the lost ones are read back.
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
      const failures: FailedWrite[] = [];
      for (const [index, result] of results.entries()) {
        if (result.status === 'fulfilled') {
          written.push(result.value);
          continue;
        }
        // Not the target's answer (a bug, an abort): the call ends as it did.
        if (!isProvisioningError(result.reason)) throw result.reason;
        const error = result.reason;
        failures.push({
          write: { groupId: ids[index]!, change },
          error,
          maybeApplied: mayHaveBeenApplied(error.toJSON()),
        });
      }
      // Each failed write says whether it was refused or may have been applied; the removals
      // that failed keep the additions from being sent.
      if (failures.length > 0) throw failedWriteCall(failures, written);
    }
    return written;
  }

  /** `GET /Groups/{id}`: the group's name and member values (undefined: no member list). */
  private async readGroupMembers(
    groupId: string,
    groupName: string,
  ): Promise<{ name: string; members: string[] | undefined }> {
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.settings.baseUrl, 'Groups', groupId),
      accept: [200],
      context: this.groupContext(groupId, groupName),
    });
    const group = (result.body ?? {}) as Record<string, unknown>;
    const name = typeof group.displayName === 'string' ? group.displayName : groupId;
    return { name, members: readMemberValues(group) };
  }

  /**
   * One PATCH on the group's `members`, judged by its own answer (DESIGN invariant 9): 409
   * on add and `noTarget` on remove say it was already so; 200/204 only acknowledge, even a
   * 200 that lists the account among the members: some servers answer from the request, not
   * from what they stored, so the step reads every write back.
   */
  private async writeOne(
    account: TargetAccount,
    groupId: string,
    groupName: string,
    change: 'added' | 'removed',
  ): Promise<MembershipWriteAnswer> {
    if (change === 'added') return this.patchOne(account, groupId, groupName, change);
    const [configured, ...others] = this.memberValues(account);
    const removed = await this.patchOne(account, groupId, groupName, change, configured);
    let answer = removed;
    for (const value of others) {
      const other = await this.removeOtherForm(account, groupId, groupName, value);
      answer = {
        ...answer,
        outcome: answer.outcome === 'acknowledged' ? answer.outcome : other.outcome,
        maybeOurs: answer.maybeOurs || other.maybeOurs,
      };
    }
    return answer;
  }

  /**
   * The removal of the membership in a form additions do not write: RFC 7643's own (the
   * User's `id`), as Entra, Okta and admin screens add members, or the account ID on a server
   * configured for ids. A group may hold the account under it as well (a lax server takes
   * both), and a removal under the configured form alone would leave that access in place.
   * A server that refuses the removal in this form fails the step where the group holds it
   * so, naming the group and the value; where it does not, the refusal changes nothing.
   */
  private async removeOtherForm(
    account: TargetAccount,
    groupId: string,
    groupName: string,
    value: string,
  ): Promise<MembershipWriteAnswer> {
    try {
      return await this.patchOne(account, groupId, groupName, 'removed', value);
    } catch (error) {
      if (!isProvisioningError(error) || error.code !== 'SCIM_INVALID_VALUE') throw error;
      const held = await this.holds(groupId, groupName, value);
      if (held === false) {
        return { groupId, groupName, change: 'removed', outcome: 'already', maybeOurs: false };
      }
      const form = this.settings.memberValue === 'accountId' ? 'SCIM id' : 'account ID';
      throw new ProvisioningError(
        error.code,
        `${error.message}: group ${describeGroup({ id: groupId, displayName: groupName })} ` +
          `${held ? 'holds' : 'may hold'} account "${account.accountId}" under its ${form} ` +
          `"${value}", which the server does not let this connector remove`,
        {
          ...(error.status === undefined ? {} : { status: error.status }),
          object: groupId,
          details: { ...error.details, memberValue: value },
          cause: error,
        },
      );
    }
  }

  /**
   * Whether the group holds this one member value: from its member list, else from the
   * members filter where it works (its "no" only once believed); undefined when neither tells.
   */
  private async holds(
    groupId: string,
    groupName: string,
    value: string,
  ): Promise<boolean | undefined> {
    const { members } = await this.readGroupMembers(groupId, groupName);
    if (heldAs(members, [value]) !== undefined) return true;
    const check = this.checks.known;
    if (members === undefined && check?.kind === 'filter') {
      const found = await this.checks.memberOf(check, [groupId], [value]);
      if (found.groupIds.has(groupId)) return true;
      return this.checks.absenceBelieved && found.cutShort === undefined ? false : undefined;
    }
    return members === undefined ? undefined : false;
  }

  /** One PATCH on the group's `members`, in the configured form unless `value` says another. */
  private async patchOne(
    account: TargetAccount,
    groupId: string,
    groupName: string,
    change: 'added' | 'removed',
    value = this.memberValue(account),
  ): Promise<MembershipWriteAnswer> {
    const body =
      change === 'added'
        ? addMemberPatch(value)
        : removeMemberPatch(value, this.settings.memberRemoveStyle);
    const context = this.groupContext(groupId, groupName, account.accountId);
    // The answer's members are never read; where the members filter checks memberships the
    // server is asked to leave them out (a big group's would be megabytes; RFC 7644 §3.9).
    const lean = this.checks.known?.kind === 'filter' ? { excludedAttributes: 'members' } : {};
    const result = await this.http.send({
      method: 'PATCH',
      url: scimUrl(this.settings.baseUrl, 'Groups', groupId, lean),
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
    return { ...answer, outcome: 'acknowledged' };
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

/**
 * The value that names an account in member lists, as the service writes it (setting
 * `memberValue`: the account ID, or the target's id of the account).
 */
export function memberValueOf(
  settings: Pick<ScimConnectorSettings, 'memberValue'>,
  account: { accountId: string; id: string },
): string {
  return settings.memberValue === 'accountId' ? account.accountId : account.id;
}
