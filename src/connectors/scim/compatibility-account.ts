import { randomBytes } from 'node:crypto';
import type { TargetAccount } from '../../domain/account';
import { isRefusalByTarget } from '../../domain/compatibility-hint';
import type { Evidence } from '../../domain/compatibility-result';
import type { SerializedError } from '../../domain/errors';
import type { DeclaredFeatures } from './declared-features';
import type { CompatibilitySession } from './compatibility-session';
import { changeAccount, howSeen } from './compatibility-test-objects';

/** A failure's verdict: the target refused (false), or nothing was seen (undefined). */
export function refusal(error: SerializedError): false | undefined {
  return isRefusalByTarget(error) ? false : undefined;
}

/** "`what` was refused: ..." when the target refused, else "`what` could not be tried: ...". */
export function failedNote(what: string, error: SerializedError, aside = ''): string {
  return `${what} ${isRefusalByTarget(error) ? 'was refused' : 'could not be tried'}${aside}: ${error.message}`;
}

/** What a failed call says about point 2, when the target refused the credentials. */
export function judgeCredentials(
  s: CompatibilitySession,
  error: SerializedError,
  evidence: Evidence[],
): void {
  if (error.code === 'TARGET_AUTH_FAILED') {
    s.check(
      2,
      'credentials',
      false,
      `the server refused the credentials: ${error.message}`,
      evidence,
    );
  }
}

/**
 * The test account: searched (`userName eq`, nothing found), created, found again by
 * `userName eq`. Answers the account, or none when it could not be created (`mayExist`: the
 * answer did not rule out that the server created it).
 */
export async function createTestAccount(
  s: CompatibilitySession,
  declared: DeclaredFeatures,
): Promise<{ account?: TargetAccount; mayExist: boolean }> {
  const { testAccount } = s;
  const created = await s.attempt('create the test account', () =>
    s.connector.createAccount({
      accountId: testAccount,
      displayName: 'Compatibility test account',
      givenName: 'Compatibility',
      familyName: 'Test',
      email: `${testAccount}@example.invalid`,
    }),
  );
  const answer = created.value;
  if (answer === undefined || answer.outcome === 'exists') {
    const why = created.error?.message ?? 'the server said it exists, but no read showed it';
    if (created.error !== undefined) judgeCredentials(s, created.error, created.evidence);
    const refused = created.error !== undefined && isRefusalByTarget(created.error);
    s.observe('create', refused ? 'will fail' : 'untested', `POST /Users: ${why}`);
    // Without a clear refusal the server may have created it (a lost answer): cleanup looks.
    return { mayExist: !refused };
  }
  let account: TargetAccount;
  let fault = '';
  if (answer.outcome === 'unconfirmed') {
    // As the service does: an unusable answer is followed by a read of the account.
    const shown = await s.attempt('read the test account after an unusable create answer', () =>
      s.connector.findAccount(testAccount),
    );
    if (shown.value === undefined) {
      s.observe(
        'create',
        'will fail',
        `POST /Users: ${answer.error.message}; no read shows the account`,
      );
      return { mayExist: true };
    }
    account = shown.value;
    fault = `; the server created the account but ${answer.fault} (the service reads it back and goes on)`;
  } else {
    account = answer.account;
  }
  // The run's own create (a new account ID; or adopted after its own answer was lost).
  if (answer.outcome !== 'adopted' || answer.maybeOurs) s.made([{ change: 'account created' }]);
  s.check(
    1,
    'endpoints',
    true,
    `POST /scim/v2/Users created the test account${fault}`,
    created.evidence,
  );

  const found = await s.attempt('find the test account (userName eq)', () =>
    s.connector.findAccount(testAccount),
  );
  const caveat =
    declared.changePassword === false
      ? '; a password given on create may be ignored: the server declares changePassword: false'
      : '';
  if (found.value !== undefined) {
    s.check(4, 'eq', true, 'userName eq found the test account', found.evidence);
    s.observe(
      'create',
      'works',
      `POST /Users created the test account and userName eq found it${fault}${caveat}`,
    );
  } else if (found.error === undefined) {
    s.check(
      4,
      'eq',
      false,
      'userName eq did not find the test account just created',
      found.evidence,
    );
    s.observe(
      'create',
      'works',
      `POST /Users created the test account, but userName eq does not find it (point 4)${fault}${caveat}`,
    );
  } else {
    s.check(4, 'eq', refusal(found.error), failedNote('userName eq', found.error), found.evidence);
    s.observe(
      'create',
      'works',
      `POST /Users created the test account, but userName eq was refused (point 4)${fault}${caveat}`,
    );
  }
  return { account, mayExist: true };
}

/** The server did not take the e-mail's value path: refused the path or the filter in it. */
function emailPathNotTaken(error: SerializedError): boolean {
  return (
    error.code === 'SCIM_INVALID_VALUE' ||
    error.code === 'SCIM_FILTER_UNSUPPORTED' ||
    error.code === 'SCIM_PATCH_UNSUPPORTED'
  );
}

/**
 * The update, through the service's own procedure (PATCH replace, read back): the display
 * name and the e-mail, as `emailUpdateStyle` writes it. Where `pathFilter` (only the primary
 * address, RFC 7644 §3.5.2.3) is refused, `wholeList` is tried and, seen to work, suggested:
 * the one way to change the e-mail on such a server, at the cost the reason names.
 */
async function tryUpdate(s: CompatibilitySession, account: TargetAccount): Promise<void> {
  const changes = {
    displayName: 'Compatibility test account (changed)',
    email: `${s.testAccount}.changed@example.invalid`,
  };
  const configured = s.settings.emailUpdateStyle;
  const what = (style: string) =>
    `PATCH replace of displayName and the e-mail (emailUpdateStyle: ${style})`;
  const update = await s.attempt(
    `change the display name and e-mail (emailUpdateStyle: ${configured})`,
    () => changeAccount(s, s.connector, account, 'update', changes),
  );
  if (update.error === undefined) {
    const note = `${what(configured)} was applied and ${howSeen(update.value)}`;
    s.check(5, 'user attributes', true, note, update.evidence);
    s.observe('update', 'works', note, 5);
    return;
  }
  const said = `${what(configured)}: ${update.error.message}`;
  s.check(5, 'user attributes', refusal(update.error), said, update.evidence);
  s.observe('update', isRefusalByTarget(update.error) ? 'will fail' : 'untested', said, 5);
  if (configured !== 'pathFilter' || !emailPathNotTaken(update.error)) return;

  const setting = { setting: 'emailUpdateStyle', value: 'wholeList' };
  const retry = await s.attempt(
    'change the display name and e-mail (emailUpdateStyle: wholeList)',
    () =>
      changeAccount(
        s,
        s.connectorWith({ emailUpdateStyle: 'wholeList' }),
        account,
        'update',
        changes,
      ),
  );
  if (retry.error !== undefined) {
    const failed = `${what('wholeList')} failed too: ${retry.error.message}`;
    s.check(5, 'user attributes', refusal(retry.error), failed, retry.evidence, setting);
    return;
  }
  const note = `${what('wholeList')} was applied and ${howSeen(retry.value)}`;
  s.suggest({
    ...setting,
    point: 5,
    tried: true,
    reason:
      `${note}, where the primary address's value path was refused; on this server an e-mail ` +
      'change replaces the whole emails list: addresses the service did not set are removed',
  });
  s.check(5, 'user attributes', true, note, retry.evidence, setting);
  s.observe('update', 'works', note, 5);
  s.use({ emailUpdateStyle: 'wholeList' });
}

/**
 * Point 5's user half, each through the service's own procedure: PATCH replace (read back),
 * PATCH password (the write's own answer: a password cannot be read back), PATCH active
 * false and true (read back).
 */
export async function tryUserPatches(
  s: CompatibilitySession,
  account: TargetAccount,
  declared: DeclaredFeatures,
): Promise<void> {
  await tryUpdate(s, account);

  const password = `Cp-${randomBytes(12).toString('base64url')}9!`;
  const declaredNot = declared.changePassword === false;
  const pw = await s.attempt('set a password (PATCH password)', () =>
    s.connector.patchPassword(account, password),
  );
  // Answered 2xx: the journal records it, as for a request (the answer is all there is),
  // unless the server declares it does not change passwords: then the answer is no evidence
  // (a request is refused there; invariant 11).
  if (pw.error === undefined && !declaredNot) s.made([{ change: 'password set' }]);
  if (pw.error === undefined && declaredNot) {
    // Invariant 11: the answer and the declaration conflict, and a password cannot be read
    // back; servers that declare it unsupported answer 2xx and ignore it (scim-interop.md).
    const note =
      'could not tell: PATCH password was answered 2xx, but the server declares changePassword: false ' +
      '(ServiceProviderConfig), and a password cannot be read back to see which of the two is true';
    s.check(5, 'password', undefined, note, pw.evidence);
    s.observe('setPassword', 'untested', note, 5);
  } else if (pw.error === undefined) {
    const note =
      "PATCH password was accepted (a password cannot be read back: the server's answer is the evidence)";
    s.check(5, 'password', true, note, pw.evidence);
    s.observe('setPassword', 'works', note, 5);
  } else {
    s.check(
      5,
      'password',
      refusal(pw.error),
      failedNote(
        'PATCH password',
        pw.error,
        declaredNot ? ' (the server declares changePassword: false)' : '',
      ),
      pw.evidence,
    );
    s.observe(
      'setPassword',
      isRefusalByTarget(pw.error) ? 'will fail' : 'untested',
      `PATCH password: ${pw.error.message}`,
      5,
    );
  }

  // The account as the procedure last left it: the unlock's step starts from the lock's state,
  // as a request's step starts from a read (it tells an effective change by it).
  let current = account;
  for (const action of ['lock', 'unlock'] as const) {
    const word = action === 'lock' ? 'false' : 'true';
    const done = await s.attempt(`${action} the test account (PATCH active ${word})`, () =>
      changeAccount(s, s.connector, current, action),
    );
    if (done.error === undefined) {
      current = { ...current, enabled: action === 'unlock' };
      const note = `PATCH active ${word} ${action}ed the account, ${howSeen(done.value)}`;
      s.check(5, 'active', true, note, done.evidence);
      s.observe(action, 'works', note, 5);
    } else {
      s.check(
        5,
        'active',
        refusal(done.error),
        `PATCH active ${word}: ${done.error.message}`,
        done.evidence,
      );
      s.observe(
        action,
        isRefusalByTarget(done.error) ? 'will fail' : 'untested',
        `PATCH active ${word}: ${done.error.message}`,
        5,
      );
      if (action === 'lock') {
        s.untested('unlock', 'not tried: the lock failed');
        return;
      }
    }
  }
}
