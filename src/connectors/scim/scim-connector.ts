import type { HealthProbe } from '../../domain/health-probe';
import { probeScimHealth } from './health-probe';
import type { ScimConnectorSettings } from './scim-settings';
import type { AccountChanges, AccountProfile, TargetAccount } from '../../domain/account';
import type { GroupRef } from '../../domain/group';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { readScimLastLogon } from '../../domain/last-logon';
import type {
  Connector,
  ConnectorCapabilities,
  CreateAccountAnswer,
  DeleteAccountAnswer,
  LastLogonResult,
  MembershipRead,
  MembershipWriteAnswer,
  SetEnabledAnswer,
  StatusResult,
  UnlinkedAbsence,
} from '../connector';
import { readAfterWrite } from '../read-after-write';
import { unusableCreateAnswer } from '../unusable-create-answer';
import { ambiguousAccount } from './ambiguous-account';
import { createAnswerFault } from './create-answer';
import { DeclaredFeaturesReader } from './declared-features';
import { hasScimType, mapScimError, type ScimErrorContext } from './error-mapper';
import { attributeFilter } from './filter';
import { findByName, findFiltered } from './filtered-lookup';
import { searchMatches } from './group-search';
import { interpretListResponse, type ListPage } from './list-response';
import { incompleteness, readAllPages, type ListTally } from './pager';
import { activePatch, passwordPatch, patchOp } from './patch-op';
import { passwordChangeNotDeclared, passwordMayBeIgnored } from './password-declaration';
import { ScimHttp, type ScimHttpOptions } from './scim-http';
import type { MembershipCheck } from './membership-check';
import { ScimMemberships } from './scim-memberships';
import { scimReconciliation } from './scim-reconciliation';
import type { ReconciliationReads } from '../../domain/reconciliation-reads';
import type { UserGroupsVerdicts } from '../../domain/user-groups-verdict';
import { scimUrl } from './scim-paths';
import { checkScimStatus } from './scim-status';
import {
  fromScimUser,
  toReplaceOperations,
  toScimUser,
  withPrimaryEmailAdded,
} from './user-mapping';

/** How many users a delete of an unlinked account compares at most (ten pages of 100). */
export const ABSENCE_SCAN_MAX = 1_000;
/**
 * Connector A: a SCIM 2.0 client (spec: Connector A, RFC 7644) for any application with a
 * SCIM interface, tolerant of the server quirks of scim-interop.md.
 */
export class ScimConnector implements Connector {
  readonly kind = 'scim' as const;
  /**
   * SCIM servers answer consistently: a read confirms a write at once or never. One PATCH
   * per group, sent in parallel: a write operation carries up to 20 groups. A PATCH answers
   * alike whether or not the member was there: the read before the writes tells.
   */
  readonly capabilities: ConnectorCapabilities = {
    visibilityWindowMs: 0,
    membershipReadScope: 'named',
    membershipWriteBatchSize: 20,
    membershipWritesSayIfInPlace: false,
  };
  readonly http: ScimHttp;
  readonly reconciliation: ReconciliationReads;
  private readonly memberships: ScimMemberships;
  /** The ServiceProviderConfig's claims, read once: whether a password write can be believed. */
  private readonly declared: DeclaredFeaturesReader;

  constructor(
    readonly settings: ScimConnectorSettings,
    options: ScimHttpOptions & {
      /** Where what is learned of the user's `groups` attribute is kept for every worker. */
      userGroupsVerdicts?: UserGroupsVerdicts;
    },
  ) {
    this.http = new ScimHttp(settings, options);
    this.memberships = new ScimMemberships(
      settings,
      this.http,
      options.logger,
      options.userGroupsVerdicts,
    );
    this.reconciliation = scimReconciliation(settings, this.http, this.memberships.checks);
    this.declared = new DeclaredFeaturesReader(settings, this.http);
  }

  get name(): string {
    return this.settings.name;
  }

  checkStatus(): Promise<StatusResult> {
    return checkScimStatus(this.settings, this.http);
  }

  probeHealth(): Promise<HealthProbe> {
    return probeScimHealth(this.settings, this.http);
  }

  /** All users, page by page, with the same paging tolerance as the catalogue. */
  listAccounts(): AsyncGenerator<TargetAccount> {
    return this.readAccounts({ read: 0 });
  }

  /** {@link listAccounts}, telling `tally` what the list read saw. */
  private async *readAccounts(tally: ListTally): AsyncGenerator<TargetAccount> {
    const resources = readAllPages(
      async (startIndex) => {
        const result = await this.http.send({
          method: 'GET',
          url: scimUrl(this.settings.baseUrl, 'Users', undefined, {
            startIndex,
            count: this.settings.pageSize,
          }),
          accept: [200],
          context: this.accountContext('(all accounts)'),
        });
        return interpretListResponse(result.body, result.describe);
      },
      `connector "${this.name}": accounts`,
      tally,
      this.settings.pageSize,
    );
    for await (const resource of resources) yield fromScimUser(resource);
  }

  /** The userName in lower case: it is caseExact=false (RFC 7643 §4.1.1), as findAccount reads it. */
  accountKey(accountId: string): string {
    return accountId.toLowerCase();
  }

  /**
   * Spec: Search account, `filter=userName eq "<account_id>"`; a 404 is no match. A server
   * that ignores the filter is read on, page by page; on a server that keeps userNames
   * case-sensitive, the user of exactly that name, else the one in another case; several in
   * other cases and none exactly is ACCOUNT_AMBIGUOUS naming them, never one of them taken
   * ({@link findByName}).
   */
  async findAccount(accountId: string): Promise<TargetAccount | undefined> {
    const filter = attributeFilter('userName', 'eq', accountId);
    const context = this.accountContext(accountId);
    // userName is caseExact=false (RFC 7643 §4.1.1), but not on every server: several users
    // of the name in other cases are none of them known to be it.
    const match = await findByName(
      (startIndex) => this.filteredPage('Users', filter, startIndex, context),
      (resource) => resource.userName,
      accountId,
      `connector "${this.name}": account "${accountId}"`,
      this.settings.pageSize,
    );
    if (match.outcome === 'ambiguous') {
      throw ambiguousAccount(this.name, accountId, match.candidates);
    }
    return match.outcome === 'none' ? undefined : fromScimUser(match.resource);
  }

  /**
   * Every user read and compared case-insensitively: a server may compare `userName eq`
   * case-sensitively (scim-interop.md), though RFC 7643 marks userName caseExact false, so
   * a filter that matched nothing proves nothing. Up to {@link ABSENCE_SCAN_MAX} users: a
   * larger directory leaves the delete "could not tell".
   */
  async proveAbsent(accountId: string): Promise<UnlinkedAbsence> {
    const key = this.accountKey(accountId);
    const matches: TargetAccount[] = [];
    const tally: ListTally = { read: 0, probePastTotal: true };
    let read = 0;
    try {
      for await (const account of this.readAccounts(tally)) {
        // A delete does not read a whole large directory: past this many users, no verdict.
        if (++read > ABSENCE_SCAN_MAX) {
          return {
            outcome: 'untold',
            reason: `the server has more than ${ABSENCE_SCAN_MAX} users to compare in any case`,
          };
        }
        if (this.accountKey(account.accountId) === key) matches.push(account);
      }
    } catch (error) {
      // A list cut short or not a list: what it did not show may be the account.
      if (!isProvisioningError(error) || error.code !== 'TARGET_RESPONSE_INVALID') throw error;
      return {
        outcome: 'untold',
        reason: `the list of users could not be read whole (${error.message})`,
      };
    }
    const [only, another] = matches;
    if (only !== undefined && another === undefined) return { outcome: 'found', account: only };
    if (only !== undefined) {
      // "JSmith" and "JSMITH" on a server that tells them apart: neither is known to be it.
      return {
        outcome: 'untold',
        reason: `${matches.length} users have that userName in another case (${matches.map((m) => `"${m.accountId}"`).join(', ')})`,
      };
    }
    // "Absent" only from a list known whole: counted by the server, and unchanged while read.
    const cut = incompleteness(tally);
    if (cut !== undefined) {
      return { outcome: 'untold', reason: `the list of users may not be whole: ${cut}` };
    }
    return {
      outcome: 'absent',
      evidence: `no userName equal to "${accountId}" in any case among all the server's users`,
    };
  }

  /** Spec: Read accounts by the server's id (`GET /Users/{id}`); undefined on 404. */
  async readAccount(account: TargetAccount): Promise<TargetAccount | undefined> {
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.settings.baseUrl, 'Users', account.id),
      accept: [200, 404],
      context: this.accountContext(account.accountId),
    });
    if (result.status === 404) return undefined;
    const read = fromScimUser(result.body, this.settings.mapping);
    // Another user's answer (a caching proxy, a broken server) confirms nothing of this one.
    if (read.id !== account.id) {
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `connector "${this.name}": ${result.describe} answered user "${read.id}" for user "${account.id}" (account "${account.accountId}")`,
        { object: account.accountId, details: { asked: account.id, answered: read.id } },
      );
    }
    return read;
  }

  /**
   * Spec: Create account. A 409 `uniqueness` adopts the existing account when its userName
   * is the account ID (invariant 4: an activity may run twice; scim-interop.md). A 2xx the
   * account cannot be read from (no `id`, a body that does not parse, an `id` that does not
   * read back) is `unconfirmed`: the step machine reads the account back by userName to tell
   * (invariant 11). A password sent to a server that declares `changePassword: false` earns
   * a notice: such servers accept one on create and ignore it (scim-interop.md).
   */
  async createAccount(profile: AccountProfile, password?: string): Promise<CreateAccountAnswer> {
    const context = this.accountContext(profile.accountId);
    const mayIgnore =
      password !== undefined && (await this.declared.features()).changePassword === false;
    const result = await this.http.send({
      method: 'POST',
      url: scimUrl(this.settings.baseUrl, 'Users'),
      json: toScimUser(profile, this.settings.mapping, password),
      accept: [200, 201, 409],
      context,
      ...(password === undefined ? {} : { transientSecrets: [password] }),
    });
    const maybeOurs = result.maybeAppliedBefore;
    if (result.status !== 409) {
      const fault = createAnswerFault(result);
      const unusable = (why: string) =>
        unusableCreateAnswer(result, why, { connector: this.name, accountId: profile.accountId });
      if (fault !== undefined) return unusable(fault);
      const account = fromScimUser(result.body);
      // A 201 is read back by its id: a server may answer a create it never stores, and
      // SCIM reads show writes at once (DESIGN invariant 9). Not shown, or not readable (a
      // 429, a refusal: the create was answered all the same), the answer is unusable: the
      // step machine reads by account ID, as for any such answer.
      let shown: TargetAccount | undefined;
      try {
        shown = await this.readAccount(account);
      } catch (error) {
        // Only the connector's own errors (their messages redacted): anything else is a bug.
        if (!isProvisioningError(error)) throw error;
        return unusable(
          `answered with id ${account.id}, but reading it back failed: ${error.message}`,
        );
      }
      if (shown === undefined) {
        return unusable(`answered with id ${account.id}, but a read by that id does not find it`);
      }
      const ignored = mayIgnore ? passwordMayBeIgnored(this.name, profile.accountId) : undefined;
      return {
        outcome: 'created',
        account,
        maybeOurs,
        ...(ignored === undefined ? {} : { notices: [ignored] }),
      };
    }
    const existing = await readAfterWrite(maybeOurs, () => this.findAccount(profile.accountId));
    if (existing === undefined) throw mapScimError(result, context);
    return { outcome: 'adopted', account: existing, maybeOurs };
  }

  /**
   * Spec: Change account: PATCH `replace`. An e-mail change touches only the managed (primary)
   * address; a target with no primary address answers 400 `noTarget` (RFC 7644 §3.5.2.3) and
   * gets it added instead. Nothing was applied before: a PatchOp is atomic (§3.5.2).
   */
  async updateAccount(account: TargetAccount, changes: AccountChanges): Promise<void> {
    const operations = toReplaceOperations(
      changes,
      this.settings.mapping,
      this.settings.emailUpdateStyle,
    );
    if (operations.length === 0) return;
    try {
      await this.patchUser(account, patchOp(operations));
    } catch (error) {
      const added = withPrimaryEmailAdded(operations);
      if (added === undefined || !hasScimType(error, 'noTarget')) throw error;
      await this.patchUser(account, patchOp(added));
    }
  }

  /**
   * Spec: Set password: PATCH on `password`. Refused before anything is sent when the server
   * declares `changePassword: false`: its 2xx would be no evidence (DESIGN invariant 11).
   */
  async setPassword(account: TargetAccount, password: string): Promise<void> {
    const refusal = await this.passwordRefusal(account.accountId);
    if (refusal !== undefined) throw refusal;
    await this.patchPassword(account, password);
  }

  /** OPERATION_NOT_SUPPORTED when the server declares `changePassword: false`, else undefined. */
  async passwordRefusal(accountId: string): Promise<ProvisioningError | undefined> {
    return (await this.declared.features()).changePassword === false
      ? passwordChangeNotDeclared(this.name, accountId)
      : undefined;
  }

  /** The PATCH on `password`, whatever the server declares: the compatibility run tries it. */
  async patchPassword(account: TargetAccount, password: string): Promise<void> {
    await this.patchUser(account, passwordPatch(password), [password]);
  }

  /**
   * Spec: Lock / unlock: PATCH on `active`. The answer's `active` is not reported as the
   * state the server holds: some servers answer from the request, not from what they stored
   * (scim-interop.md), so the step machine reads every lock and unlock back.
   */
  async setEnabled(account: TargetAccount, enabled: boolean): Promise<SetEnabledAnswer> {
    await this.patchUser(account, activePatch(enabled));
    return {};
  }

  /** Spec: Delete account; `absent` when the server answered 404 (invariant 4). */
  async deleteAccount(account: TargetAccount): Promise<DeleteAccountAnswer> {
    const result = await this.http.send({
      method: 'DELETE',
      url: scimUrl(this.settings.baseUrl, 'Users', account.id),
      accept: [200, 204, 404],
      context: this.accountContext(account.accountId),
    });
    return {
      outcome: result.status === 404 ? 'absent' : 'deleted',
      maybeOurs: result.maybeAppliedBefore,
    };
  }

  /**
   * Spec: Import group catalogue, all pages. Members are excluded: a catalogue needs names,
   * and big groups would make pages huge (scim-interop.md: Entra does the same).
   */
  async *importGroups(): AsyncGenerator<GroupRef> {
    const describe = `connector "${this.name}": group catalogue`;
    const resources = readAllPages(
      async (startIndex) => {
        const result = await this.http.send({
          method: 'GET',
          url: scimUrl(this.settings.baseUrl, 'Groups', undefined, {
            startIndex,
            count: this.settings.pageSize,
            excludedAttributes: 'members',
          }),
          accept: [200],
          context: this.groupContext('catalogue'),
        });
        return interpretListResponse(result.body, result.describe);
      },
      describe,
      undefined,
      this.settings.pageSize,
    );
    for await (const resource of resources) {
      const group = toGroupRef(resource);
      if (group !== undefined) yield group;
    }
  }

  /**
   * The group by its id (members excluded); undefined only on the server's own 404 (a SCIM
   * error body): a bare 404 (a proxy, a wrong base URL) proves nothing and throws.
   */
  async readGroup(groupId: string): Promise<GroupRef | undefined> {
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.settings.baseUrl, 'Groups', groupId, { excludedAttributes: 'members' }),
      accept: [200, 404],
      context: this.groupContext(`group ${groupId}`),
    });
    // The transport lets a 404 through only as the server's own not-found (scim-http.ts).
    if (result.status === 404) return undefined;
    const body = result.body;
    const group =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? toGroupRef(body as Record<string, unknown>)
        : undefined;
    if (group === undefined || group.id !== groupId) {
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `connector "${this.name}": ${result.describe} answered 200 without group ${groupId}`,
        { object: groupId },
      );
    }
    return group;
  }

  /**
   * Spec: Find group for provisioning, `displayName eq`. A server that ignores the filter is
   * read on, page by page ({@link findFiltered}).
   */
  async findGroup(displayName: string): Promise<GroupRef | undefined> {
    const filter = attributeFilter('displayName', 'eq', displayName);
    const match = await findFiltered(
      (startIndex) =>
        this.filteredPage('Groups', filter, startIndex, this.groupContext(filter), {
          count: String(this.settings.pageSize),
          excludedAttributes: 'members',
        }),
      (resource) =>
        typeof resource.displayName === 'string' &&
        resource.displayName.toLowerCase() === displayName.toLowerCase(),
      `connector "${this.name}": group "${displayName}"`,
      this.settings.pageSize,
    );
    return match === undefined ? undefined : toGroupRef(match);
  }

  /** Spec: Group search, operator `co`: every page of matches ({@link searchMatches}). */
  async searchGroups(text: string): Promise<GroupRef[]> {
    const filter = attributeFilter('displayName', 'co', text);
    const matches = await searchMatches(
      (startIndex) =>
        this.filteredPage('Groups', filter, startIndex, this.groupContext(filter), {
          excludedAttributes: 'members',
        }),
      text,
      `connector "${this.name}"`,
      this.settings.pageSize,
    );
    return matches.flatMap((resource) => toGroupRef(resource) ?? []);
  }

  /** How this server's memberships are checked, once the first membership read decided it. */
  get membershipCheck(): MembershipCheck | undefined {
    return this.memberships.membershipCheck;
  }

  readMemberships(
    account: TargetAccount,
    groupIds: readonly string[],
    confirmAbsent: readonly string[] = [],
    absenceVouchedBefore = false,
  ): Promise<MembershipRead> {
    return this.memberships.read(account, groupIds, confirmAbsent, absenceVouchedBefore);
  }

  writeMemberships(
    account: TargetAccount,
    changes: { add: readonly string[]; remove: readonly string[] },
    names: Record<string, string>,
  ): Promise<MembershipWriteAnswer[]> {
    return this.memberships.write(account, changes, names);
  }

  /** Spec: Last-logon value, connector A. */
  async readLastLogon(account: TargetAccount): Promise<LastLogonResult> {
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.settings.baseUrl, 'Users', account.id),
      accept: [200],
      context: this.accountContext(account.accountId),
    });
    const resource = (result.body ?? {}) as Record<string, unknown>;
    const found = readScimLastLogon(resource, this.settings.advanced.lastLogonAttribute);
    return found === undefined
      ? { status: 'none found' }
      : { status: 'found', value: found.value, detail: found.source };
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /**
   * One page of a filtered list; a 404 is no match (scim-interop.md). Every page, the first
   * included, asks for `pageSize` resources: whether a page may end the list is judged against
   * the count asked (`mayEndLater`), never against a server's default page size.
   */
  private async filteredPage(
    resource: 'Users' | 'Groups',
    filter: string,
    startIndex: number | undefined,
    context: ScimErrorContext,
    query: Record<string, string> = {},
  ): Promise<ListPage> {
    const count = this.settings.pageSize;
    const paging = startIndex === undefined ? { count } : { startIndex, count };
    const result = await this.http.send({
      method: 'GET',
      url: scimUrl(this.settings.baseUrl, resource, undefined, { filter, ...paging, ...query }),
      accept: [200, 404],
      context,
    });
    if (result.status === 404) return { resources: [] };
    return interpretListResponse(result.body, result.describe);
  }

  private patchUser(account: TargetAccount, body: unknown, transientSecrets?: string[]) {
    return this.http.send({
      method: 'PATCH',
      url: scimUrl(this.settings.baseUrl, 'Users', account.id),
      json: body,
      // RFC 7644 §3.5.2: 200 with the resource or 204 without; both are success.
      accept: [200, 204],
      context: this.accountContext(account.accountId),
      ...(transientSecrets === undefined ? {} : { transientSecrets }),
    });
  }

  private accountContext(accountId: string) {
    return {
      connector: this.name,
      subject: `account "${accountId}"`,
      notFound: 'ACCOUNT_NOT_FOUND' as const,
      object: accountId,
    };
  }

  private groupContext(what: string) {
    return {
      connector: this.name,
      subject: `groups (${what})`,
      notFound: 'SCIM_REQUEST_REJECTED' as const,
      object: what,
    };
  }
}

export function toGroupRef(resource: Record<string, unknown>): GroupRef | undefined {
  if (typeof resource.id !== 'string') return undefined;
  const displayName = typeof resource.displayName === 'string' ? resource.displayName : resource.id;
  return { id: resource.id, displayName, writable: true };
}
