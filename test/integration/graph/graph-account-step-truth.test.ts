import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { directIo } from '../../../src/connectors/direct-io';
import type { GraphConnector } from '../../../src/connectors/graph';
import type { AccountProfile, TargetAccount } from '../../../src/domain/account';
import { applyRecordUpdate } from '../../../src/domain/account-record';
import { accountStep, type AccountAction } from '../../../src/domain/account-step';
import { newAccountHandle, type AccountHandle } from '../../../src/domain/step-context';
import { driveAsync } from '../../../src/domain/step-machine';
import { STEP_OPS } from '../../../src/domain/step-ops';
import type { StepOutcome } from '../../../src/domain/step-outcome';
import { truthChanges, truthMark } from '../../support/journal-truth';
import { createdAccount } from '../../support/membership-procedure';
import { startHarness, type Harness } from './graph-harness';

/**
 * Account steps judged by the sandbox's truth log: what a step journals must be what the
 * target really changed (graph-behaviour.md: a PATCH answers 204 whether it changed anything
 * or not; answers can be lost after the write was applied, and the retry then meets the
 * change already in place, "404 on delete").
 */

let harness: Harness;
let graph: GraphConnector;
let serial = 0;

beforeAll(async () => {
  harness = await startHarness();
  graph = harness.connector();
});

afterAll(async () => {
  await harness.close();
});

beforeEach(() => {
  harness.sandbox.setFaults(undefined);
  harness.sandbox.setReplicationDelay(0);
});

/** An account the service created just now, as its record says. */
async function created(): Promise<{ account: TargetAccount; createdAt: string }> {
  const accountId = `lostwrites${++serial}@contoso.example`;
  const account = await createdAccount(graph, { accountId, displayName: `Lost ${serial}` });
  return { account, createdAt: new Date(harness.clock.now()).toISOString() };
}

/** What a request knows of an account it read, and that the service created at `createdAt`. */
function handleFor(account: TargetAccount, createdAt: string): AccountHandle {
  const handle = newAccountHandle();
  handle.account = account;
  handle.seen = true;
  handle.seenAt = Date.parse(createdAt);
  handle.record = {
    connector: graph.name,
    accountId: account.accountId,
    targetId: account.id,
    linkedAt: createdAt,
    createdAt,
    enabled: true,
    enabledAt: createdAt,
    assignedGroups: [],
  };
  return handle;
}

/** One account step through the step machine, with the service's record of the create. */
function step(
  action: Exclude<AccountAction, 'create' | 'setPassword'>,
  account: TargetAccount,
  createdAt: string,
  profile: AccountProfile = { accountId: account.accountId },
  handle = handleFor(account, createdAt),
  connector: GraphConnector = graph,
  afterWrite?: () => void,
): Promise<StepOutcome> {
  const io = directIo(connector, harness.clock);
  const perform = io.perform.bind(io);
  return driveAsync(
    accountStep({
      requestId: `lost-writes-${serial}`,
      step: 1,
      connector: graph.name,
      accountId: account.accountId,
      capabilities: graph.capabilities,
      handle,
      action,
      profile,
      lastPasswordUse: false,
    }),
    {
      ...io,
      perform: async (op, input) => {
        const result = await perform(op, input);
        if (op !== STEP_OPS.readAccount && op !== STEP_OPS.findAccount) afterWrite?.();
        return result;
      },
    },
  );
}

/** The step's effective changes (what the journal gets) as truth-log lines. */
function journalOf(account: TargetAccount, outcome: StepOutcome): string[] {
  return outcome.changes
    .map((c) => [account.accountId.toLowerCase(), c.change, c.groupId ?? ''].join(' ').trim())
    .sort();
}

describe('a delete of an account created moments ago, its answer lost after it was applied', () => {
  it("is journaled as the service's delete, though every later 404 could be lag", async () => {
    const { account, createdAt } = await created();
    const since = truthMark(harness.sandbox.truthLog());
    harness.sandbox.setFaults({ seed: 4, lostAnswerRate: 1 });
    const outcome = await step('delete', account, createdAt);
    expect(harness.sandbox.faultCounts()['lost answer']).toBe(1);
    harness.sandbox.setFaults(undefined);

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([`${account.accountId} account deleted`]);
    expect(harness.sandbox.getUser(account.id)).toBeUndefined();
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(outcome.ok).toBe(true);
    expect(outcome.notices.join('\n')).not.toContain('already gone');
  });
});

describe('a delete answered 404 by a proxy in front of Graph, not by Graph', () => {
  it.each(['html', 'empty'] as const)(
    'fails naming the call, and the account stays (%s body)',
    async (body) => {
      const { account, createdAt } = await created();
      const since = truthMark(harness.sandbox.truthLog());
      harness.sandbox.injectProxyNotFound(`/users/${account.id}`, body);
      let outcome: StepOutcome;
      try {
        outcome = await step('delete', account, createdAt);
      } finally {
        harness.sandbox.clearProxyNotFound();
      }

      expect(outcome.ok).toBe(false);
      expect(outcome.error).toMatchObject({
        code: 'TARGET_RESPONSE_INVALID',
        message: expect.stringContaining("without Graph's not-found error"),
      });
      expect(outcome.changes).toEqual([]);
      expect(truthChanges(harness.sandbox.truthLog(), since)).toEqual([]);
      expect(harness.sandbox.getUser(account.id)).toBeDefined();
    },
  );
});

describe('an update to the values the account has already', () => {
  it('is written and verified, and journals no change', async () => {
    const { account, createdAt } = await created();
    const seen = await graph.readAccount(account);
    expect(seen?.profile?.displayName).toBe(account.displayName);
    const since = truthMark(harness.sandbox.truthLog());
    const outcome = await step('update', seen!, createdAt, {
      accountId: account.accountId,
      displayName: account.displayName!,
    });
    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([]);
    expect(outcome.ok).toBe(true);
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(harness.sandbox.requests.some((r) => r.method === 'PATCH')).toBe(true);
  });

  it('two updates in one request: the second, back to the first values, is journaled too', async () => {
    const { account, createdAt } = await created();
    const seen = await graph.readAccount(account);
    const since = truthMark(harness.sandbox.truthLog());
    const handle = handleFor(seen!, createdAt);
    const renamed = await step(
      'update',
      seen!,
      createdAt,
      {
        accountId: account.accountId,
        displayName: `${account.displayName!} Renamed`,
      },
      handle,
    );
    const back = await step(
      'update',
      seen!,
      createdAt,
      {
        accountId: account.accountId,
        displayName: account.displayName!,
      },
      handle,
    );
    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([
      `${account.accountId} account updated`,
      `${account.accountId} account updated`,
    ]);
    expect([...journalOf(account, renamed), ...journalOf(account, back)]).toEqual(truth);
  });

  it('a real change is journaled', async () => {
    const { account, createdAt } = await created();
    const seen = await graph.readAccount(account);
    const since = truthMark(harness.sandbox.truthLog());
    const outcome = await step('update', seen!, createdAt, {
      accountId: account.accountId,
      displayName: `${account.displayName!} Renamed`,
    });
    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([`${account.accountId} account updated`]);
    expect(outcome.ok).toBe(true);
    expect(journalOf(account, outcome)).toEqual(truth);
  });
});

describe('an update whose answer was lost, back to values a lagging replica still shows', () => {
  it('is not journaled when Graph did not apply it, though reads show the values it asked for', async () => {
    const { account, createdAt } = await created();
    const { accountId } = account;
    const original = account.displayName!;
    // A minute on, request 1 renames the account: the service records when (profileAt).
    await harness.clock.sleep(60_000);
    const first = handleFor((await graph.readAccount(account))!, createdAt);
    const renamed = await step(
      'update',
      first.account!,
      createdAt,
      { accountId, displayName: `${original} Renamed` },
      first,
    );
    expect(renamed.ok).toBe(true);
    // Request 2, seconds later, sets the name back; replicas now lag 25 s, so its reads show
    // the name from before request 1. Graph answers every attempt of its PATCH 503 or 504
    // without applying it: the answer is lost, and only a read can tell.
    harness.sandbox.setReplicationDelay(25_000);
    const record = applyRecordUpdate(first.record!, graph.name, accountId, renamed.record!)!;
    const second = newAccountHandle();
    second.account = (await graph.readAccount(account))!;
    expect(second.account.profile?.displayName).toBe(original);
    second.seen = true;
    second.seenAt = harness.clock.now();
    second.record = record;
    const since = truthMark(harness.sandbox.truthLog());
    harness.sandbox.setFaults({ seed: 3, serverErrorRate: 1 });
    let unanswered = 0;
    const outcome = await step(
      'update',
      second.account,
      createdAt,
      { accountId, displayName: original },
      second,
      graph,
      () => {
        unanswered = harness.sandbox.faultCounts()['server error'];
        harness.sandbox.setFaults(undefined);
      },
    );

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([]);
    expect(harness.sandbox.getUser(account.id)?.['displayName']).toBe(`${original} Renamed`);
    expect(unanswered).toBeGreaterThan(0);
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.message).toContain('could not tell whether this one was applied');
    expect(outcome.record).toBeUndefined();
  });
});

describe('a lock applied whose answer was lost, and whose retry Graph throttles past the wait allowed', () => {
  it('is read back, and journaled once the read-back shows it', async () => {
    const { account, createdAt } = await created();
    // Waits of at most 1 s for throttling: the retry's 429 (Retry-After 5 s) is its last answer.
    const patient = harness.connector({ maxThrottleWaitSeconds: 1 });
    const since = truthMark(harness.sandbox.truthLog());
    harness.sandbox.setFaults({ seed: 6, lostAnswerRate: 1 });
    harness.sandbox.setThrottle({ limit: 1, windowMs: 60_000, retryAfterSeconds: 5 });
    // The throttling ends, and answers come again, once the lock's answer is in.
    const outcome = await step('lock', account, createdAt, undefined, undefined, patient, () => {
      harness.sandbox.setThrottle(undefined);
      harness.sandbox.setFaults(undefined);
    });

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([`${account.accountId} account locked`]);
    expect(harness.sandbox.getUser(account.id)?.['accountEnabled']).toBe(false);
    expect(harness.sandbox.requests.some((r) => r.status === 429)).toBe(true);
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(outcome.ok).toBe(true);
    expect(outcome.record?.enabled?.value).toBe(false);
  });
});
