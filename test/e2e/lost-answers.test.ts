import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  journalChanges,
  journalOfRequests,
  truthChanges,
  truthMark,
} from '../support/journal-truth';
import type { TruthEvent } from '../../src/sandbox/truth';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * scim-interop.md, "answer lost after the write was applied", with every write's answer lost
 * (a reset or a gateway's 504, on every retry): the target's truth shows the change; the
 * journal holds it once, as the request's own; the service's record and the request's
 * status follow what the read-back showed. Where no read-back can be made, the step says it
 * could not tell, and journals nothing (DESIGN invariant 11).
 */

const SCIM = 'scim-sandbox';
const GRAPH = 'graph-sandbox';

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  for (const connector of [SCIM, GRAPH]) {
    expect((await t.importCatalogue(connector)).status).toBe('succeeded');
  }
}, 60_000);

afterAll(() => t?.close());

async function run(requestId: string, connector: string, accountId: string, actions: unknown[]) {
  const answer = await t.api('POST', '/api/requests', {
    requestId,
    connector,
    account: { accountId, displayName: 'Lost Answers' },
    actions,
  });
  expect(answer.status, answer.text).toBe(202);
  return t.finished(requestId);
}

/** Runs one request against a target that loses every write's answer: what the truth and journal say. */
async function withAnswersLost(
  sandbox: {
    setFaults(plan: { seed: number; lostAnswerRate: number } | undefined): void;
    truthLog(): readonly TruthEvent[];
    faultCounts(): Record<string, number>;
  },
  requestId: string,
  connector: string,
  accountId: string,
  actions: unknown[],
) {
  const since = truthMark(sandbox.truthLog());
  sandbox.setFaults({ seed: 7, lostAnswerRate: 1 });
  try {
    const report = await run(requestId, connector, accountId, actions);
    expect(sandbox.faultCounts()['lost answer']).toBeGreaterThan(0);
    return {
      report,
      truth: truthChanges(sandbox.truthLog(), since),
      journal: journalChanges(await journalOfRequests(t, [requestId])),
    };
  } finally {
    sandbox.setFaults(undefined);
  }
}

async function assignedGroups(connector: string, accountId: string): Promise<string[]> {
  return (await t.host.services.accounts.get(connector, accountId))?.assignedGroups ?? [];
}

describe('Graph, every write answer lost, replicas lagging', () => {
  const accountId = 'lost.answers@contoso.example';

  beforeAll(async () => {
    const made = await run('graph-make', GRAPH, accountId, [{ type: 'create' }]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');
  });

  it('a grant and a lock: the truth changed, the journal holds each change once, the request succeeded on the read-back', async () => {
    const graph = t.host.sandboxes!.graph;
    const sales = t.host.sandboxes!.graphGroups.Sales!;
    graph.setReplicationDelay({ min: 1_000, max: 8_000 });
    try {
      const { report, truth, journal } = await withAnswersLost(
        graph,
        'graph-lost',
        GRAPH,
        accountId,
        [{ type: 'grant', groups: [{ name: 'Sales' }] }, { type: 'lock' }],
      );
      expect(truth).toEqual([`${accountId} account locked`, `${accountId} member added ${sales}`]);
      expect(graph.directMemberIds(sales)).toContain(graph.userIdByUpn(accountId));
      expect(journal).toEqual(truth);
      expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
      expect(await assignedGroups(GRAPH, accountId)).toContain(sales);
    } finally {
      graph.setReplicationDelay(0);
    }
  });
});

describe('SCIM, every write answer lost', () => {
  const accountId = 'lost.answers';
  const scim = () => t.host.sandboxes!.scim;
  const groupId = (name: string) => String(scim().getGroup(name)?.id);
  const memberOf = (name: string) => scim().groupIdsOf(accountId).includes(groupId(name));

  beforeAll(async () => {
    const made = await run('scim-make', SCIM, accountId, [{ type: 'create' }]);
    expect(made.status, JSON.stringify(made.steps)).toBe('succeeded');
  });

  it('a grant: the truth shows the member, the journal holds it once, the record lists the group, the request succeeded', async () => {
    const { report, truth, journal } = await withAnswersLost(
      scim(),
      'scim-grant',
      SCIM,
      accountId,
      [{ type: 'grant', groups: [{ name: 'Sales' }] }],
    );
    expect(truth).toEqual([`${accountId} member added ${groupId('Sales')}`]);
    expect(memberOf('Sales')).toBe(true);
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(report.steps[0].notices.join('\n')).toContain('the read-back shows it in place');
    expect(await assignedGroups(SCIM, accountId)).toContain(groupId('Sales'));
  });

  it('a revoke and a lock: the truth shows both, the journal holds each once, the request succeeded', async () => {
    const { report, truth, journal } = await withAnswersLost(
      scim(),
      'scim-revoke',
      SCIM,
      accountId,
      [{ type: 'revoke', groups: [{ name: 'Sales' }] }, { type: 'lock' }],
    );
    expect(truth).toEqual(
      [`${accountId} member removed ${groupId('Sales')}`, `${accountId} account locked`].sort(),
    );
    expect(memberOf('Sales')).toBe(false);
    expect(scim().getUser(accountId)?.active).toBe(false);
    expect(journal).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(await assignedGroups(SCIM, accountId)).not.toContain(groupId('Sales'));
  });

  it('a grant whose read-back cannot be made: the step says it could not tell, and journals nothing', async () => {
    const sandbox = scim();
    const since = truthMark(sandbox.truthLog());
    sandbox.setFaults({ seed: 7, lostAnswerRate: 1 });
    let watching = true;
    // Once the write is applied (and its answer lost), the target answers every call 503.
    const watch = (async () => {
      while (watching) {
        if (truthChanges(sandbox.truthLog(), since).length > 0) {
          sandbox.injectServerErrors(400, 503);
          return;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const report = await run('scim-untold', SCIM, accountId, [
        { type: 'grant', groups: [{ name: 'Finance' }] },
      ]);
      watching = false;
      await watch;
      expect(truthChanges(sandbox.truthLog(), since)).toEqual([
        `${accountId} member added ${groupId('Finance')}`,
      ]);
      expect(report.status).toBe('failed');
      const step = report.steps[0];
      expect(step.error.message).toContain('could not tell whether the change was applied');
      expect(step.notices.join('\n')).toContain('could not tell whether it was applied');
      expect(await journalOfRequests(t, ['scim-untold'])).toEqual([]);
      expect(await assignedGroups(SCIM, accountId)).not.toContain(groupId('Finance'));
    } finally {
      watching = false;
      sandbox.setFaults(undefined);
      sandbox.clearInjected();
    }
  });
});
