import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { directIo } from '../../../src/connectors/direct-io';
import { observedConnector, type TargetObserver } from '../../../src/connectors/observed-connector';
import type { Connector } from '../../../src/connectors/connector';
import type { TargetAccount } from '../../../src/domain/account';
import { membershipStep } from '../../../src/domain/membership-step';
import type { TargetFailure } from '../../../src/domain/quarantine';
import { newAccountHandle } from '../../../src/domain/step-context';
import { driveAsync } from '../../../src/domain/step-machine';
import type { StepOutcome } from '../../../src/domain/step-outcome';
import { truthChanges, truthMark } from '../../support/journal-truth';
import { graphTestClient, type GraphTestClient } from '../sandbox/graph-test-client';
import { ADMIN, startHarness, type Harness } from './graph-harness';

/** The Entra admin center, which may write the members of role-assignable groups. */
const ROLE_ADMIN = {
  clientId: 'role-admin-app',
  secret: 'role-admin-secret-1',
  roles: ['GroupMember.ReadWrite.All', 'RoleManagement.ReadWrite.Directory'],
};

/**
 * graph-behaviour.md, Batching and Eventual consistency: in one `$batch`, one sub-request is
 * applied and its own answer lost (a gateway's 504), another is refused (403: the app may not
 * write the members of a role-assignable group, which a catalogue imported while it could
 * still vouches for). The refusal is an answer: never read back as possibly applied, and the
 * step fails naming it, not as an outage. The lost one may have been applied: the read-back
 * tells, and the journal gets it. Judged by the sandbox's truth log.
 */

let harness: Harness;
let admin: GraphTestClient;
let serial = 0;
const outages: TargetFailure[] = [];
const observer: TargetObserver = {
  answered: () => undefined,
  failed: (_name, kind) => {
    outages.push(kind);
    return false;
  },
};

beforeAll(async () => {
  harness = await startHarness({ clients: [ADMIN, ROLE_ADMIN] });
  admin = await graphTestClient(harness.sandbox, ROLE_ADMIN);
});

afterAll(async () => {
  await admin.close();
  await harness.close();
});

beforeEach(() => {
  outages.length = 0;
  harness.sandbox.setFaults(undefined);
  harness.sandbox.setReplicationDelay(0);
});

/** A user, a plain group and a role-assignable group the service's app may not write. */
function seed(): { account: TargetAccount; plain: string; privileged: string } {
  const upn = `refusals${++serial}@contoso.example`;
  const { id } = harness.sandbox.addUser({ userPrincipalName: upn });
  return {
    account: { id, accountId: upn, enabled: true },
    plain: harness.sandbox.addGroup({ displayName: `Plain ${serial}` }).id,
    privileged: harness.sandbox.addGroup({
      displayName: `Privileged ${serial}`,
      isAssignableToRole: true,
    }).id,
  };
}

/**
 * A grant of `groupIds` (in this order, as one `$batch`) through the membership step machine,
 * the catalogue vouching for every group as writable, on a connector that sends each write
 * once (a 504 is its final answer) and whose failures the quarantine observer sees.
 */
async function grant(account: TargetAccount, groupIds: string[]): Promise<StepOutcome> {
  const connector: Connector = observedConnector(harness.connector({ maxRetries: 0 }), observer);
  const handle = newAccountHandle();
  handle.account = account;
  handle.seen = true;
  return driveAsync(
    membershipStep({
      requestId: `refusals-${serial}`,
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

/** The step's effective changes (what the journal gets) as truth-log lines. */
function journalOf(account: TargetAccount, outcome: StepOutcome): string[] {
  return outcome.changes
    .map((c) => [account.accountId.toLowerCase(), c.change, c.groupId ?? ''].join(' ').trim())
    .sort();
}

describe('a $batch with a write applied and its answer lost, and a write refused', () => {
  it('refused first: the lost write is still read back and journaled; the step names the refusal', async () => {
    const { account, plain, privileged } = seed();
    const since = truthMark(harness.sandbox.truthLog());
    harness.sandbox.setFaults({ seed: 3, subRequestLostAnswerRate: 1 });
    const outcome = await grant(account, [privileged, plain]);
    expect(harness.sandbox.faultCounts()['lost answer']).toBe(1);
    harness.sandbox.setFaults(undefined);

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([`${account.accountId} member added ${plain}`]);
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(outcome.notices.join('\n')).toContain('answered 504');
    expect(outcome.notices.join('\n')).toContain('the read-back shows it in place');
    expect(outcome.record?.granted).toEqual([plain]);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('GRAPH_PERMISSION_MISSING');
    expect(outcome.error?.object).toBe(privileged);
    expect(outages).toEqual([]);
  });

  it('lost first: the refused write is not read back as possibly applied, and is no outage', async () => {
    const { account, plain, privileged } = seed();
    // An administrator put the account in the privileged group a moment ago; the replicas
    // the service reads do not show it yet.
    harness.sandbox.setReplicationDelay(5_000);
    const added = await admin.call(
      'POST',
      `/groups/${privileged}/members/$ref`,
      admin.ref(account.id),
    );
    expect(added).toMatchObject({ status: 204 });
    const since = truthMark(harness.sandbox.truthLog());
    harness.sandbox.setFaults({ seed: 3, subRequestLostAnswerRate: 1 });
    const outcome = await grant(account, [plain, privileged]);
    expect(harness.sandbox.faultCounts()['lost answer']).toBe(1);
    harness.sandbox.setFaults(undefined);

    const truth = truthChanges(harness.sandbox.truthLog(), since);
    expect(truth).toEqual([`${account.accountId} member added ${plain}`]);
    // The service did not add the account to the privileged group: Graph refused it.
    expect(journalOf(account, outcome)).toEqual(truth);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('GRAPH_PERMISSION_MISSING');
    expect(outcome.error?.object).toBe(privileged);
    expect(outages).toEqual([]);
  });
});
