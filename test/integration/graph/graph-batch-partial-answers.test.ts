import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { directIo } from '../../../src/connectors/direct-io';
import { withSendDeadline } from '../../../src/connectors/http/send-deadline';
import type { Connector } from '../../../src/connectors/connector';
import type { MembershipWriteAnswer } from '../../../src/connectors/connector';
import type { TargetAccount } from '../../../src/domain/account';
import { failedMembershipWrites } from '../../../src/domain/lost-answer';
import { membershipStep } from '../../../src/domain/membership-step';
import { newAccountHandle } from '../../../src/domain/step-context';
import { driveAsync } from '../../../src/domain/step-machine';
import type { StepOutcome } from '../../../src/domain/step-outcome';
import { truthChanges, truthMark } from '../../support/journal-truth';
import { failureOf, startHarness, type Harness } from './graph-harness';

/**
 * graph-behaviour.md, Batching: each sub-response of a `$batch` is Graph's own answer. A grant
 * of two groups in one `$batch`: Graph applies the first (204) and throttles the second (429,
 * Retry-After 2 s); the round that re-sends the second is never answered (the request's lease
 * has no time left to send it, or a gateway answers its envelope 503/504). The first write's
 * 204 still stands: the journal gets it though no read-back shows it yet (replicas lag beyond
 * the window). The second, which Graph never applied, is not journaled; only where its
 * envelope may have been applied (a gateway error) is it read back as possibly this request's
 * own (DESIGN invariant 9). Judged by the sandbox's truth log.
 */

let harness: Harness;
let serial = 0;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness.close();
});

beforeEach(() => {
  harness.sandbox.setThrottle(undefined);
  harness.sandbox.setReplicationDelay(0);
  harness.sandbox.setLatency(0);
});

function seed(): { account: TargetAccount; first: string; second: string } {
  const upn = `partial${++serial}@contoso.example`;
  const { id } = harness.sandbox.addUser({ userPrincipalName: upn });
  return {
    account: { id, accountId: upn, enabled: true },
    first: harness.sandbox.addGroup({ displayName: `First ${serial}` }).id,
    second: harness.sandbox.addGroup({ displayName: `Second ${serial}` }).id,
  };
}

/** How the round re-sending the throttled write ends. */
type RoundTwo = 'lease ends' | 'gateway error';

/**
 * A connector whose membership writes meet a Graph that lets one request through per minute
 * (the first sub-request; the second is answered 429, Retry-After 2 s). `lease ends`: they
 * run under a lease that leaves 1 s to send, so the round re-sending the throttled write
 * comes after it and is refused. `gateway error`: once the connector waits out the 429,
 * every envelope meets a gateway's 503/504 before Graph runs it (sent once: maxRetries 0).
 */
function throttledConnector(roundTwo: RoundTwo): Connector {
  // Where the sandbox's request list stood when the write call began (undefined: not writing).
  let writingFrom: number | undefined;
  const throttledSince = (from: number) =>
    harness.sandbox.requests.slice(from).some((r) => r.viaBatch === true && r.status === 429);
  const sleep = harness.clock.sleep;
  harness.clock.sleep = async (ms: number) => {
    // Waiting out the 429 (not the quota's pacing before round 1).
    if (roundTwo === 'gateway error' && writingFrom !== undefined && throttledSince(writingFrom)) {
      harness.sandbox.setFaults({ seed: 1, serverErrorRate: 1 });
    }
    await sleep(ms);
  };
  const connector = harness.connector({ maxRetries: 0 });
  harness.clock.sleep = sleep;
  return new Proxy(connector, {
    get(target, property, receiver) {
      if (property !== 'writeMemberships')
        return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<Connector['writeMemberships']>) => {
        harness.sandbox.setThrottle({ limit: 1, windowMs: 60_000, retryAfterSeconds: 2 });
        writingFrom = harness.sandbox.requests.length;
        try {
          const write = () => target.writeMemberships(...args);
          if (roundTwo === 'gateway error') return await write();
          return await withSendDeadline(
            {
              notAfterMs: harness.clock.now() + 1_000,
              now: harness.clock.now,
              subject: `account "${args[0].accountId}"`,
            },
            write,
          );
        } finally {
          writingFrom = undefined;
          harness.sandbox.setThrottle(undefined);
          harness.sandbox.setFaults(undefined);
        }
      };
    },
  });
}

async function grant(
  account: TargetAccount,
  groupIds: string[],
  roundTwo: RoundTwo,
): Promise<StepOutcome> {
  const connector = throttledConnector(roundTwo);
  const handle = newAccountHandle();
  handle.account = account;
  handle.seen = true;
  return driveAsync(
    membershipStep({
      requestId: `partial-${serial}`,
      step: 0,
      connector: connector.name,
      accountId: account.accountId,
      capabilities: connector.capabilities,
      handle,
      action: 'grant',
      groups: groupIds.map((id) => ({ id })),
      lookedUp: {
        ok: true,
        value: groupIds.map((id) => ({ id, displayName: id, writable: true })),
      },
    }),
    directIo(connector, harness.clock),
  );
}

function journalOf(account: TargetAccount, outcome: StepOutcome): string[] {
  return outcome.changes
    .map((c) => [account.accountId.toLowerCase(), c.change, c.groupId ?? ''].join(' ').trim())
    .sort();
}

describe('a $batch whose second round is not answered', () => {
  it("keeps Graph's 204 of the first round: journaled, though no read-back shows it", async () => {
    const { account, first, second } = seed();
    const since = truthMark(harness.sandbox.truthLog());
    // Replicas show the write only after the 30 s window: only Graph's answer can tell.
    harness.sandbox.setReplicationDelay(60_000);
    const outcome = await grant(account, [first, second], 'lease ends');

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([`${account.accountId} member added ${first}`]);
    expect(harness.sandbox.groupIdsOf(account.id)).toEqual([first]);
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(outcome.record?.granted).toEqual([first]);
    // The second write was never applied, and the step says why it was not sent.
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('ACCOUNT_LEASE_ENDING');
    expect(outcome.record?.unconfirmedGroups ?? []).not.toContain(second);
  });
  it("keeps Graph's 204 when the second round meets a gateway error, and reads back only the write it carried", async () => {
    const { account, first, second } = seed();
    const since = truthMark(harness.sandbox.truthLog());
    harness.sandbox.setReplicationDelay(60_000);
    const from = harness.sandbox.requests.length;
    const outcome = await grant(account, [first, second], 'gateway error');
    const envelopes = harness.sandbox.requests
      .slice(from)
      .filter((request) => request.path === '/v1.0/$batch');
    expect(envelopes.map((envelope) => envelope.status >= 503)).toEqual([false, true]);

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([`${account.accountId} member added ${first}`]);
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(outcome.record?.granted).toEqual([first]);
    // The second write's envelope may have been applied before its answer was lost: only a
    // read can tell, and none shows it (it was not applied), so the step fails on it.
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('TARGET_UNAVAILABLE');
    const notices = outcome.notices.join('\n');
    expect(notices).toContain(second);
    expect(notices).not.toContain(`${first}`);
  });
});

describe('a write call of more than 20 changes whose second envelope is not sent', () => {
  it('answers with the 20 writes Graph applied, and lists only the other 5 as failed', async () => {
    const upn = `partial${++serial}@contoso.example`;
    const { id } = harness.sandbox.addUser({ userPrincipalName: upn });
    const account: TargetAccount = { id, accountId: upn, enabled: true };
    const groups = Array.from(
      { length: 25 },
      (_, i) => harness.sandbox.addGroup({ displayName: `Many ${serial}-${i}` }).id,
    );
    // One envelope at a time, each answered 2.5 s (real time) after it was sent, under a
    // lease that leaves 1 s to send: the first envelope goes, the second is refused.
    const connector = harness.connector({ concurrency: 1 });
    await connector.readAccount(account);
    harness.sandbox.setLatency(2_500);
    const since = truthMark(harness.sandbox.truthLog());
    const error = await failureOf(
      withSendDeadline(
        { notAfterMs: Date.now() + 1_000, now: Date.now, subject: `account "${upn}"` },
        () => connector.writeMemberships(account, { add: groups, remove: [] }, {}, groups),
      ),
    );
    harness.sandbox.setLatency(0);

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toHaveLength(20);
    // What the journal gets: every write Graph answered 204, no more and no less.
    const written = error.details?.written as MembershipWriteAnswer[];
    expect(
      written
        .filter((answer) => answer.outcome === 'applied')
        .map((answer) => `${upn} member added ${answer.groupId}`)
        .sort(),
    ).toEqual(truth);
    expect(written).toHaveLength(20);
    const failed = failedMembershipWrites(error.toJSON()) ?? [];
    expect(failed.map((write) => write.groupId).sort()).toEqual(
      groups.filter((group) => !harness.sandbox.groupIdsOf(id).includes(group)).sort(),
    );
    expect(failed).toHaveLength(5);
    // Never sent: not applied, so never read back as possibly this request's own.
    expect(failed.every((write) => !write.maybeApplied)).toBe(true);
    expect(error.code).toBe('ACCOUNT_LEASE_ENDING');
  });
});
