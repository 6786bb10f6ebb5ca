import { randomInt } from 'node:crypto';
import type { AccountChanges, AccountProfile, TargetAccount } from '../../domain/account';
import type { CreateAccountAnswer, DeleteAccountAnswer } from '../connector';
import { readAfterWrite } from '../read-after-write';
import { unusableCreateAnswer } from '../unusable-create-answer';
import { accountWriteError } from './account-write-error';
import {
  accountErrorContext,
  errorContext,
  withTransientSecret,
  type GraphContext,
} from './graph-context';
import { isGraphNotFound, mapGraphError, readGraphError } from './graph-error-mapper';
import { isRecord } from './graph-objects';
import {
  toGraphUser,
  profileSelect,
  toGraphUserChanges,
  toPasswordProfile,
  toTargetAccount,
  toUserPrincipalName,
  USER_SELECT,
} from './graph-user-payload';
import { odataString, segment } from './graph-urls';

/** Spec: Read accounts (GET /users), across all result pages (connector B rule 2), page by page. */
export async function* listAccounts(context: GraphContext): AsyncGenerator<TargetAccount> {
  const pages = context.http.pages(
    {
      method: 'GET',
      path: '/users',
      query: { $select: USER_SELECT, $top: context.settings.pageSize },
    },
    errorContext(context, 'readAccounts', 'the accounts', context.settings.name),
  );
  for await (const page of pages) {
    for (const user of page) {
      const account = toTargetAccount(user);
      if (account !== undefined) yield account;
    }
  }
}

/**
 * Spec: Read accounts (GET /users): the account with this userPrincipalName, a bare name
 * completed with the UPN domain; undefined when there is none.
 */
export async function findAccount(
  context: GraphContext,
  accountId: string,
): Promise<TargetAccount | undefined> {
  const upn = toUserPrincipalName(accountId, context.settings.upnDomain);
  const users = await context.http.list(
    {
      method: 'GET',
      path: '/users',
      query: { $filter: `userPrincipalName eq ${odataString(upn)}`, $select: USER_SELECT },
    },
    errorContext(context, 'readAccounts', `account "${upn}"`, upn),
  );
  const lower = upn.toLowerCase();
  return users
    .map((user) => toTargetAccount(user))
    .find((account) => account !== undefined && account.accountId.toLowerCase() === lower);
}

/**
 * Spec: Read accounts: the account by its object id (GET /users/{id}), with the profile
 * properties an update writes; undefined when the read answers 404 (gone, or a new
 * account a replica does not show yet: graph-behaviour.md, Eventual consistency).
 */
export async function readAccount(
  context: GraphContext,
  account: TargetAccount,
): Promise<TargetAccount | undefined> {
  const { mapping } = context.settings;
  const result = await context.http.expect(
    {
      method: 'GET',
      path: `/users/${segment(account.id)}`,
      query: { $select: profileSelect(mapping) },
    },
    [200, 404],
    accountErrorContext(context, 'readAccounts', account),
  );
  // The transport lets a 404 through only as Graph's own not-found (GraphHttp.expect).
  if (result.status === 404 || !isRecord(result.body)) return undefined;
  return toTargetAccount(result.body, mapping);
}

/**
 * Spec: Create account (POST /users), enabled. An existing account with the same UPN
 * (graph-behaviour.md: 400 with `details[].code` ObjectConflict) is looked up and adopted
 * (DESIGN invariant 4), or answered `exists` when reads do not show it yet: the step
 * machine looks again on its timer. Without a password, a random one is set that nobody
 * knows: Graph requires a passwordProfile, and the user must change it at first sign-in.
 */
export async function createAccount(
  context: GraphContext,
  profile: AccountProfile,
  password?: string,
): Promise<CreateAccountAnswer> {
  const upn = toUserPrincipalName(profile.accountId, context.settings.upnDomain);
  const secret = password ?? generatePassword();
  const body = toGraphUser(profile, upn, secret, context.settings.mapping);
  const errors = errorContext(context, 'writeAccounts', `account "${upn}"`, upn);
  const result = await withTransientSecret(context, secret, () =>
    context.http.send({ method: 'POST', path: '/users', json: body }),
  );
  if (result.status === 201 || result.status === 200) {
    const account = isRecord(result.body) ? toTargetAccount(result.body) : undefined;
    // Graph made the user, but its answer (a proxy's page, a cut body) does not say which:
    // only a read can tell whether the account is there (DESIGN invariant 11).
    if (account === undefined) {
      const fault =
        result.body === undefined && result.text.trim() !== ''
          ? `answered ${result.status} with a body that is not JSON`
          : `answered ${result.status} without a user`;
      return unusableCreateAnswer(result, fault, {
        connector: context.settings.name,
        accountId: upn,
      });
    }
    // Graph's answer to a create holds only the default properties (no accountEnabled): the
    // state is the one the accepted body set.
    return {
      outcome: 'created',
      account: { enabled: body.accountEnabled === true, ...account },
      maybeOurs: result.maybeAppliedBefore,
    };
  }
  const error = readGraphError(result.body);
  if (result.status === 400 && error.detailCodes.includes('ObjectConflict')) {
    const maybeOurs = result.maybeAppliedBefore;
    const existing = await readAfterWrite(maybeOurs, () => findAccount(context, upn));
    context.logger.info('account exists already', {
      connector: context.settings.name,
      accountId: upn,
    });
    return existing === undefined
      ? { outcome: 'exists', maybeOurs }
      : { outcome: 'adopted', account: existing, maybeOurs };
  }
  throw mapGraphError(result, errors);
}

/** Spec: Change account (PATCH /users/{id}): only what the change names. */
export async function updateAccount(
  context: GraphContext,
  account: TargetAccount,
  changes: AccountChanges,
): Promise<void> {
  const body = toGraphUserChanges(changes, context.settings.mapping);
  if (Object.keys(body).length === 0) return;
  await patchUser(context, account, body);
}

/** Spec: Set password: PATCH passwordProfile (the password never reaches a message). */
export async function setPassword(
  context: GraphContext,
  account: TargetAccount,
  password: string,
): Promise<void> {
  await withTransientSecret(context, password, () =>
    patchUser(context, account, { passwordProfile: toPasswordProfile(password) }),
  );
}

/**
 * Spec: Delete account (DELETE /users/{id}); `absent` when Graph answered 404 (a write: it
 * sees the truth, though a user created a moment ago may 404 too, graph-behaviour.md).
 */
export async function deleteAccount(
  context: GraphContext,
  account: TargetAccount,
): Promise<DeleteAccountAnswer> {
  const result = await context.http.send({
    method: 'DELETE',
    path: `/users/${segment(account.id)}`,
  });
  if (![204, 200, 404].includes(result.status)) {
    throw await accountWriteError(context, account, result);
  }
  // Only Graph's own not-found says the account is absent (a proxy's 404 proves nothing).
  if (result.status === 404 && !isGraphNotFound(result)) {
    throw mapGraphError(result, accountErrorContext(context, 'writeAccounts', account));
  }
  return {
    outcome: result.status === 404 ? 'absent' : 'deleted',
    maybeOurs: result.maybeAppliedBefore,
  };
}

/** PATCH /users/{id} (graph-behaviour.md: 204, no body); a refusal says why (accountWriteError). */
export async function patchUser(
  context: GraphContext,
  account: TargetAccount,
  body: Record<string, unknown>,
): Promise<void> {
  const result = await context.http.send({
    method: 'PATCH',
    path: `/users/${segment(account.id)}`,
    json: body,
  });
  if (![204, 200].includes(result.status)) {
    throw await accountWriteError(context, account, result);
  }
}

const PASSWORD_SETS = [
  'ABCDEFGHJKLMNPQRSTUVWXYZ',
  'abcdefghijkmnopqrstuvwxyz',
  '23456789',
  '!#%+-=?@_',
];

/** 24 random characters with every class Entra's complexity rule asks for. */
function generatePassword(): string {
  const all = PASSWORD_SETS.join('');
  const chars = PASSWORD_SETS.map((set) => set[randomInt(set.length)]!);
  while (chars.length < 24) chars.push(all[randomInt(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
