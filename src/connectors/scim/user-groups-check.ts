import type { TargetAccount } from '../../domain/account';
import { FEATURE_REFUSALS as REFUSALS } from './membership-check';
import type { ScimHttp } from './scim-http';
import { scimUrl } from './scim-paths';

/** What the user's `groups` attribute said: the groups it lists, or that it could not say. */
export type UserGroupsAnswer = { groupIds: Set<string> } | { unsupported: string };

/**
 * The account's direct groups as the server lists them on the user (RFC 7643 §4.1.2,
 * `GET /Users/{id}?attributes=groups`): one small answer whatever the size of the groups,
 * and not cut where a group's member list is. A group it lists is the server's own word
 * that the account is a member. Its silence is believed ({@link absenceBelieved}) only once
 * the attribute has listed a group for some account on this connector: a server that does
 * not keep the attribute omits it, as RFC 7643 omits it for a user of no group.
 */
export class UserGroupsCheck {
  /** Whether the attribute has listed a group for some account: its positive control. */
  private shownMember = false;
  /** Why the server cannot be asked, once it refused the attribute. */
  private refused: string | undefined;

  constructor(
    private readonly http: ScimHttp,
    private readonly baseUrl: string,
    private readonly connector: string,
  ) {}

  /** Whether the attribute's "not listed" can be taken for "not a member". */
  get absenceBelieved(): boolean {
    return this.shownMember;
  }

  /** Whether asking is worth a call: the server has not refused the attribute. */
  get mayBeAsked(): boolean {
    return this.refused === undefined;
  }

  /** The groups the user lists, or why the server could not say. */
  async read(account: TargetAccount): Promise<UserGroupsAnswer> {
    if (this.refused !== undefined) return { unsupported: this.refused };
    const result = await this.http.send({
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
    if (REFUSALS.includes(result.status)) {
      this.refused = `the server refuses the user's groups attribute (${result.status})`;
      return { unsupported: this.refused };
    }
    const groupIds = readGroupValues(result.body);
    if (groupIds.size > 0) this.shownMember = true;
    if (groupIds.size === 0 && !this.shownMember) {
      return {
        unsupported:
          "the user's groups attribute lists no group, and it has not yet listed one for any " +
          'account on this connector: the server may not keep it',
      };
    }
    return { groupIds };
  }
}

/** The `value`s of a user's `groups` (any spelling of the name); empty when absent. */
function readGroupValues(body: unknown): Set<string> {
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
