import { randomBytes } from 'node:crypto';
import type { ScimConnectorSettings } from './scim-settings';
import type { TargetAccount } from '../../domain/account';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import type { Logger } from '../../domain/logger';
import type { SecretStore } from '../../secrets/secret-store';
import { runMembershipStep } from '../direct-io';
import type { HttpExchange } from '../http/transport';
import {
  authHolds,
  authNote,
  decide,
  judgeCallFailure,
  judgeFilter,
  judgeMembership,
  judgePatch,
} from './compatibility-judgements';
import { findLastLogonEvidence } from './compatibility-last-logon';
import {
  COMPATIBILITY_POINTS,
  type CompatibilityCheck,
  type CompatibilityReport,
  type CompatibilityStep,
} from './compatibility-report';
import { ScimConnector } from './scim-connector';
import { scimUrl } from './scim-paths';

export interface CompatibilityOptions {
  /** The group to grant and revoke; default: the first group of the catalogue. */
  groupName?: string;
  logger?: Logger;
}

/**
 * The test run with a test account (spec: "create, grant and revoke a group, lock, delete
 * ... shows whether a server fits"). Each compatibility point is judged from the calls
 * that showed it; the test account is removed at the end even when a step fails.
 *
 * @example
 * const report = await runScimCompatibility(settings, secrets);
 */
export async function runScimCompatibility(
  settings: ScimConnectorSettings,
  secrets: SecretStore,
  options: CompatibilityOptions = {},
): Promise<CompatibilityReport> {
  let bucket: HttpExchange[] = [];
  const connector = new ScimConnector(settings, {
    secrets,
    observer: (exchange) => bucket.push(exchange),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const checks: CompatibilityCheck[][] = COMPATIBILITY_POINTS.map(() => []);
  const steps: CompatibilityStep[] = [];
  const testAccount = `compat-test-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;

  /** Runs a step, keeping the calls it made as evidence. */
  async function step<T>(
    name: string,
    run: () => Promise<T>,
  ): Promise<{
    value?: T;
    error?: Error & { code?: string; status?: number };
    evidence: HttpExchange[];
  }> {
    bucket = [];
    try {
      const value = await run();
      steps.push({ name, outcome: 'succeeded', detail: '' });
      return { value, evidence: bucket };
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      steps.push({ name, outcome: 'failed', detail: error.message });
      return { error, evidence: bucket };
    }
  }
  const skip = (name: string, why: string) => steps.push({ name, outcome: 'skipped', detail: why });
  const check = (
    point: number,
    holds: boolean | undefined,
    note: string,
    evidence: HttpExchange[],
  ) => checks[point - 1]?.push({ holds, note, evidence: evidence.slice(-3) });

  let account: TargetAccount | undefined;
  let group: GroupRef | undefined;
  try {
    const spc = await step('read ServiceProviderConfig', async () => {
      const result = await connector.http.probe(
        'GET',
        scimUrl(settings.baseUrl, 'ServiceProviderConfig'),
      );
      return result.status;
    });
    if (spc.value === 200)
      check(1, true, 'ServiceProviderConfig answers under /scim/v2/', spc.evidence);

    const before = await step('search the test account (userName eq)', () =>
      connector.findAccount(testAccount),
    );
    judgeFilter(before.error, 'eq', before.evidence, check);

    const created = await step('create the test account', () =>
      connector.createAccount({
        accountId: testAccount,
        displayName: 'Compatibility test account',
        givenName: 'Compatibility',
        familyName: 'Test',
        email: `${testAccount}@example.invalid`,
      }),
    );
    account =
      created.value === undefined || created.value.outcome === 'exists'
        ? undefined
        : created.value.outcome === 'unconfirmed'
          ? // The answer was unusable: the account is cleaned up if a read shows it.
            await connector.findAccount(testAccount).catch(() => undefined)
          : created.value.account;
    if (created.value !== undefined) {
      check(1, true, 'POST /scim/v2/Users created the test account', created.evidence);
      check(2, authHolds(settings), authNote(settings), created.evidence);
    } else {
      judgeCallFailure(created.error, created.evidence, check, settings);
    }

    if (account !== undefined) {
      const found = await step('find the test account (userName eq)', () =>
        connector.findAccount(testAccount),
      );
      if (found.value !== undefined)
        check(4, true, 'userName eq found the test account', found.evidence);
      else if (found.error === undefined)
        check(4, false, 'userName eq did not find the test account', found.evidence);
      else judgeFilter(found.error, 'eq', found.evidence, check);
    }

    const picked = await step('pick a group', async () => {
      if (options.groupName !== undefined) return connector.findGroup(options.groupName);
      for await (const first of connector.importGroups()) return first;
      return undefined;
    });
    group = picked.value;
    if (options.groupName !== undefined) judgeFilter(picked.error, 'eq', picked.evidence, check);
    if (group !== undefined && options.groupName !== undefined) {
      check(4, true, `displayName eq found group "${group.displayName}"`, picked.evidence);
    }

    if (group !== undefined) {
      const text = searchText(group.displayName);
      const target = group;
      const search = await step(`search groups (displayName co "${text}")`, () =>
        connector.searchGroups(text),
      );
      if (search.value !== undefined) {
        const hit = search.value.some((g) => g.id === target.id);
        check(
          4,
          hit,
          `displayName co "${text}" ${hit ? 'found' : 'did not find'} the group`,
          search.evidence,
        );
      } else judgeFilter(search.error, 'co', search.evidence, check);
    } else {
      skip('search groups (displayName co)', 'no group to search for');
    }

    if (account !== undefined && group !== undefined) {
      const [member, target] = [account, group];
      const grant = await step(`grant group "${target.displayName}"`, () =>
        changeMembership(connector, member, 'grant', target.id),
      );
      judgeMembership(grant.error, grant.evidence, 'add', check);
      if (grant.error === undefined) {
        const revoke = await step(`revoke group "${target.displayName}"`, () =>
          changeMembership(connector, member, 'revoke', target.id),
        );
        judgeMembership(revoke.error, revoke.evidence, 'remove', check);
      } else skip(`revoke group "${target.displayName}"`, 'the grant failed');
    } else {
      skip(
        'grant and revoke a group',
        account === undefined ? 'no test account' : 'no group found',
      );
    }

    if (account !== undefined) {
      const password = `Cp-${randomBytes(12).toString('base64url')}9!`;
      const member = account;
      const pw = await step('set a password (PATCH password)', () =>
        connector.setPassword(member, password),
      );
      judgePatch(pw.error, pw.evidence, 'PATCH password', check);
      const lock = await step('lock the test account (PATCH active false)', async () => {
        await connector.setEnabled(member, false);
        return connector.findAccount(testAccount);
      });
      if (lock.value !== undefined) {
        const locked = !lock.value.enabled;
        check(
          5,
          locked,
          `PATCH active false ${locked ? 'locked' : 'did not lock'} the account`,
          lock.evidence,
        );
      } else judgePatch(lock.error, lock.evidence, 'PATCH active', check);
    } else {
      skip('set password and lock', 'no test account');
    }

    const lastLogon = await step('look for a last-logon attribute', () =>
      findLastLogonEvidence(connector, settings),
    );
    if (lastLogon.value !== undefined) {
      check(6, lastLogon.value.holds, lastLogon.value.note, lastLogon.evidence);
    }
  } finally {
    bucket = [];
  }

  const cleanup = await removeTestAccount(connector, testAccount, account, steps);
  await connector.close();
  const points = COMPATIBILITY_POINTS.map((title, index) => ({
    number: index + 1,
    title,
    outcome: decide(checks[index] ?? []),
    checks: checks[index] ?? [],
  }));
  if (points[1]?.outcome === 'could not tell' && settings.auth.type === 'none') {
    points[1].checks.push({ holds: undefined, note: authNote(settings), evidence: [] });
  }
  return {
    connector: settings.name,
    baseUrl: settings.baseUrl,
    testAccount,
    ...(group === undefined ? {} : { group: { id: group.id, displayName: group.displayName } }),
    points,
    steps,
    cleanup,
    fits: points.every((point) => point.outcome === 'fits'),
  };
}

/**
 * Grants or revokes one group through the service's own membership procedure (the step
 * machine production runs), directly on the connector: a failure comes back as its error.
 */
async function changeMembership(
  connector: ScimConnector,
  account: TargetAccount,
  action: 'grant' | 'revoke',
  groupId: string,
): Promise<void> {
  const outcome = await runMembershipStep(connector, account, action, [groupId]);
  if (!outcome.ok && outcome.error !== undefined) {
    const { error } = outcome;
    throw new ProvisioningError(error.code, error.message, {
      retryable: error.retryable,
      ...(error.object === undefined ? {} : { object: error.object }),
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  }
}

/** A piece of the group name for the `co` search: the middle of it, so `sw`/`ew` would not do. */
function searchText(name: string): string {
  if (name.length <= 3) return name;
  const size = Math.max(3, Math.floor(name.length / 2));
  const start = Math.floor((name.length - size) / 2);
  return name.slice(start, start + size);
}

/** Always removes the test account, even after a failed step. */
async function removeTestAccount(
  connector: ScimConnector,
  testAccount: string,
  known: TargetAccount | undefined,
  steps: CompatibilityStep[],
): Promise<string> {
  try {
    const account = known ?? (await connector.findAccount(testAccount));
    if (account === undefined) {
      steps.push({
        name: 'delete the test account',
        outcome: 'skipped',
        detail: 'it was never created',
      });
      return 'nothing to remove: the test account was not created';
    }
    const outcome = await connector.deleteAccount(account);
    const gone = (await connector.findAccount(testAccount)) === undefined;
    steps.push({
      name: 'delete the test account',
      outcome: gone ? 'succeeded' : 'failed',
      detail: gone ? '' : 'the account can still be found after DELETE',
    });
    return gone
      ? `test account "${testAccount}" removed (${outcome.outcome})`
      : `test account "${testAccount}" still exists after DELETE: remove it by hand`;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    steps.push({ name: 'delete the test account', outcome: 'failed', detail: message });
    return `could not remove test account "${testAccount}": ${message}`;
  }
}
