import type { TargetAccount } from '../../domain/account';
import { isProvisioningError } from '../../domain/errors';
import { describeGroup } from '../../domain/group';
import { silentLogger, type Logger } from '../../domain/logger';
import {
  keptCut,
  type UserGroupsVerdict,
  type UserGroupsVerdicts,
} from '../../domain/user-groups-verdict';
import { FEATURE_REFUSALS as REFUSALS } from './membership-check';
import type { ScimHttp } from './scim-http';
import { scimUrl } from './scim-paths';

/**
 * What the user's `groups` attribute said: the groups it lists, or that it could not say.
 * `cutShort`: why a group it does not list may still be one of the account's (its silence
 * is no evidence); undefined where the list is known complete.
 */
export type UserGroupsAnswer =
  { groupIds: Set<string>; cutShort?: string } | { unsupported: string };

/**
 * The account's direct groups as the server lists them on the user (RFC 7643 §4.1.2,
 * `GET /Users/{id}?attributes=groups`): one small answer whatever the size of the groups,
 * and not cut where a group's member list is. A group it lists is the server's own word
 * that the account is a member. Its silence is another matter: servers cap the attribute
 * (or serve its first page only), silently, so a group it does not list is a non-membership
 * only where the list is known complete (scim-interop.md):
 * - it is shorter than the longest list this connector has seen it return: a server that
 *   cuts at a count cuts every list at the same count, so a shorter one was not cut (this
 *   also says it is kept at all: a server that does not keep it omits it, as RFC 7643 omits
 *   it for a user of no group);
 * - and it has never left out a group that a member list or the members filter showed the
 *   account in ({@link omitted}): a server that lists only some kinds of groups is cut in a
 *   way no count shows, and from then on its silence is never believed.
 * That last finding is the server's, not this worker's: it is kept for the connector
 * (`verdicts`, the service's ConnectorStates), where a compatibility run that saw the
 * attribute leave out its test account's group keeps it too, and every read asks for it, so
 * that no other worker and no restart believes the attribute again: a compatibility run that
 * finds it complete ends only a cut a compatibility run kept, never one a connector caught.
 */
export class UserGroupsCheck {
  /** The most groups the attribute has listed for one account: the cap is at least that. */
  private longest = 0;
  /** A cut seen here: the attribute left out a membership a member list or filter showed. */
  private caught: UserGroupsVerdict | undefined;
  /** Whether {@link caught} is still to be kept for the other workers (tried at each read). */
  private unkept = false;
  /** The connector's kept cut, as the last read of it said (any worker, or a compatibility run). */
  private keptCut: string | undefined;
  /** Why the server cannot be asked, once it refused the attribute. */
  private refused: string | undefined;

  constructor(
    private readonly http: ScimHttp,
    private readonly baseUrl: string,
    private readonly connector: string,
    private readonly verdicts?: UserGroupsVerdicts,
    private readonly logger: Logger = silentLogger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Whether the attribute's "not listed" can be taken for "not a member" for some list: it
   * has listed a group for some account and was never caught leaving one out.
   */
  get absenceBelieved(): boolean {
    return this.longest > 0 && this.cut === undefined;
  }

  /** Why the attribute's silence is never believed, once it was seen cut (here or kept). */
  private get cut(): string | undefined {
    return this.keptCut ?? this.caught?.why;
  }

  /** Whether asking is worth a call: the server has not refused the attribute. */
  get mayBeAsked(): boolean {
    return this.refused === undefined;
  }

  /**
   * Why the answer's silence is no evidence of non-membership (undefined: it is), given the
   * groups a member list or the members filter showed the account in for the same read. A
   * list that leaves one of them out is cut short: its silence is never believed again on
   * this connector, by any worker ({@link omitted}).
   */
  async silenceOf(
    answer: UserGroupsAnswer,
    shownElsewhere: Iterable<string>,
    names: Record<string, string>,
    accountId: string,
  ): Promise<string | undefined> {
    if (!('groupIds' in answer)) return answer.unsupported;
    for (const id of shownElsewhere) {
      if (!answer.groupIds.has(id)) {
        return this.omitted(describeGroup({ id, displayName: names[id] ?? id }), accountId);
      }
    }
    return answer.cutShort;
  }

  /**
   * The attribute left out a group known to hold the account: it does not list every group.
   * Kept for the connector before the read that saw it answers.
   */
  private async omitted(group: string, accountId: string): Promise<string> {
    const known = this.cut;
    if (known !== undefined) return known;
    const why =
      `the user's groups attribute once left out group ${group}, which showed account ` +
      `"${accountId}" as a member: it does not list every group`;
    this.caught = { verdict: 'cut', why, at: this.now().toISOString(), by: 'connector' };
    await this.keep(this.caught);
    return why;
  }

  /** Keeps a cut seen here for every worker; one that cannot be kept now is tried again later. */
  private async keep(verdict: UserGroupsVerdict): Promise<void> {
    if (this.verdicts === undefined) return;
    this.unkept = true;
    try {
      await this.verdicts.recordUserGroups(this.connector, verdict);
      if (this.caught === verdict) this.unkept = false;
    } catch (error) {
      this.logger.warn(
        `connector ${this.connector}: the user's groups attribute was seen cut short, and ` +
          `that could not be kept for the other workers (${codeOf(error)}): this one keeps ` +
          `it, and tries again at its next read`,
        { connector: this.connector },
      );
    }
  }

  /**
   * What the connector's kept verdict says now (another worker or a compatibility run may
   * have changed it): a kept cut is never believed. A cut this worker caught stays whatever
   * is kept: a compatibility run's `complete` tested one ordinary group, not the kind left
   * out, and does not end a cut a connector caught (keptVerdictAfter); only an operator's
   * end, resting on a run after the cut was seen, does.
   * Answers why the silence is not believed where the verdict could not be read.
   */
  private async recall(): Promise<string | undefined> {
    if (this.verdicts === undefined) return undefined;
    if (this.caught !== undefined && this.unkept) await this.keep(this.caught);
    let kept: UserGroupsVerdict | undefined;
    try {
      kept = await this.verdicts.readUserGroups(this.connector);
    } catch (error) {
      return (
        `what this connector learned of the user's groups attribute could not be read ` +
        `(${codeOf(error)}), so whether the server cuts it short is not known`
      );
    }
    this.keptCut = kept?.verdict === 'cut' ? keptCut(kept) : undefined;
    // An operator ended the cut on a run that found the attribute mended after this worker saw it.
    if (this.caught !== undefined && kept?.by === 'operator' && this.caught.at <= kept.at) {
      this.caught = undefined;
      this.unkept = false;
    }
    return undefined;
  }

  /** The groups the user lists, or why the server could not say. */
  async read(account: TargetAccount): Promise<UserGroupsAnswer> {
    if (this.refused !== undefined) return { unsupported: this.refused };
    const [result, unrecalled] = await Promise.all([this.ask(account), this.recall()]);
    if (REFUSALS.includes(result.status)) {
      this.refused = `the server refuses the user's groups attribute (${result.status})`;
      return { unsupported: this.refused };
    }
    const groupIds = readGroupValues(result.body);
    const longest = this.longest;
    this.longest = Math.max(longest, groupIds.size);
    if (longest === 0) {
      if (groupIds.size > 0) {
        return { groupIds, cutShort: this.cut ?? unrecalled ?? cutAt(groupIds.size) };
      }
      return {
        unsupported:
          "the user's groups attribute lists no group, and it has not yet listed one for any " +
          'account on this connector: the server may not keep it',
      };
    }
    const cut = this.cut ?? unrecalled;
    if (cut !== undefined) return { groupIds, cutShort: cut };
    return groupIds.size < longest ? { groupIds } : { groupIds, cutShort: cutAt(longest) };
  }

  /** `GET /Users/{id}?attributes=groups`; a refusal comes back as the server's answer. */
  private ask(account: TargetAccount) {
    return this.http.send({
      method: 'GET',
      url: scimUrl(this.baseUrl, 'Users', account.id, { attributes: 'groups' }),
      accept: [200, ...REFUSALS],
      context: {
        connector: this.connector,
        subject: `the groups of account "${account.accountId}"`,
        notFound: 'ACCOUNT_NOT_FOUND',
        object: account.accountId,
      },
    });
  }
}

/** A failure's code for an operator's line (no message: it may name storage details). */
function codeOf(error: unknown): string {
  return isProvisioningError(error) ? error.code : 'unexpected failure';
}

/** Why a list as long as the longest seen may be cut short. */
function cutAt(longest: number): string {
  return (
    `the user's groups attribute lists ${longest} group${longest === 1 ? '' : 's'}, as many as ` +
    `the most it has listed for any account on this connector: the server may cut it short there`
  );
}

/** The `value`s of a user's `groups` (any spelling of the name); empty when absent. */
export function readGroupValues(body: unknown): Set<string> {
  if (typeof body !== 'object' || body === null) return new Set();
  const user = body as Record<string, unknown>;
  const key = Object.keys(user).find((name) => name.toLowerCase() === 'groups');
  const groups = key === undefined ? undefined : user[key];
  if (!Array.isArray(groups)) return new Set();
  return new Set(
    groups.flatMap((group: unknown) => {
      const value = (group as { value?: unknown } | null)?.value;
      return typeof value === 'string' ? [value] : [];
    }),
  );
}
