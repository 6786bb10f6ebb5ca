import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepCommit } from '../../src/store/account-state';
import { requestInstanceId } from '../../src/workflows/names';
import { importCatalogues, provisionDriftAccounts, reconcile, report } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A request the request list does not show (its listing at submission failed, or the worker
 * stopped between starting it and listing it) still holds its account's lease while it
 * writes: a reconciliation running then defers the account instead of confirming as drift
 * what the request wrote before its step's commit records it. Judged on the stored findings.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;

beforeAll(async () => {
  // A short settle window, so the reconciliation's waits for busy accounts end well inside
  // the request's lease (5 minutes).
  t = await startTestHost(
    {},
    {
      sandboxSettings: (settings) =>
        settings.name === SCIM ? { ...settings, reconcileSettleSeconds: 20 } : settings,
    },
  );
  await importCatalogues(t);
  await provisionDriftAccounts(t, SCIM);
  t.clock.advanceBy(5 * 60_000);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** Holds the commits of one account's steps until `release`; `reached` once one waits. */
function holdCommits(accountId: string) {
  const { accounts } = t.host.services;
  const commitStep = accounts.commitStep.bind(accounts);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  accounts.commitStep = async (commit: StepCommit) => {
    if (commit.accountId === accountId) {
      reached();
      await released;
    }
    return commitStep(commit);
  };
  return {
    reached: waiting,
    release: () => {
      release();
      accounts.commitStep = commitStep;
    },
  };
}

describe('a request missing from the request list', () => {
  it('keeps a reconciliation running while it writes from confirming its grant as drift', async () => {
    const { requests } = t.host.services;
    const add = requests.add.bind(requests);
    requests.add = async () => {
      throw new Error('request index unavailable');
    };
    const hold = holdCommits('ada');
    let report1: unknown;
    try {
      const submitted = await t.api('POST', '/api/requests', {
        requestId: 'unlisted-grant',
        connector: SCIM,
        account: { accountId: 'ada' },
        actions: [{ type: 'grant', groups: ['Finance'] }],
      });
      expect(submitted.status, submitted.text).toBe(202);
      requests.add = add;
      // The grant is on the target; its step has not committed its record yet.
      await hold.reached;
      expect(t.logs.join('\n')).toContain('request unlisted-grant: not listed at submission');
      const listed = await t.api('GET', `/api/requests?connector=${SCIM}&accountId=ada`);
      expect(JSON.stringify(listed.body)).not.toContain('unlisted-grant');

      // The driver moves its clock to a due timer only when idle; the held step keeps it busy.
      const reconciled = reconcile(t, SCIM);
      let done = false;
      void reconciled.finally(() => (done = true)).catch(() => undefined);
      for (let moved = 0; !done && moved < 150_000; moved += 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        t.clock.advanceBy(5_000);
      }
      report1 = await reconciled;
      // Nothing stored about ada's Finance membership: it is the request's, not drift.
      expect(
        (await report(t, SCIM, { accountId: 'ada' })).filter((f) => f.groupName === 'Finance'),
      ).toEqual([]);
    } finally {
      requests.add = add;
      hold.release();
    }
    expect(JSON.stringify(report1)).toContain("holds the account's lease");
    await t.host.driver.waitFor(requestInstanceId('unlisted-grant'), 60_000);
    const ended = await t.api('GET', '/api/requests/unlisted-grant');
    expect(ended.body.status).toBe('succeeded');
    // Once the request has ended (and its window passed), a reconciliation finds nothing either.
    t.clock.advanceBy(10 * 60_000);
    await reconcile(t, SCIM);
    expect(
      (await report(t, SCIM, { accountId: 'ada' })).filter((f) => f.groupName === 'Finance'),
    ).toEqual([]);
  }, 120_000);
});
