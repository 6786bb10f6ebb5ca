import { afterEach, describe, expect, it } from 'vitest';
import { SCIM, useServiceBench } from '../../support/service-bench';

/*
 * Issue 12, item 5: a SCIM server that creates the account but answers the create in a way
 * the account cannot be read from. The service reads the account back by its userName and
 * continues when the read shows it; the verdict rests on that read, judged here by the
 * sandbox's truth.
 */
const bench = useServiceBench();
afterEach(() => {
  bench.sandboxes.scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
});

describe.each([
  ['withoutId', 'answered without an id'],
  ['notJson', 'answered 201 with a body that is not JSON'],
] as const)('a create answered %s', (createAnswer, fault) => {
  const accountId = `unusable.${createAnswer}`;

  it('continues with the grants once a read by userName shows the account, and says why', async () => {
    bench.sandboxes.scim.setQuirks({ lastLogonAttribute: 'lastLogin', createAnswer });
    const before = bench.sandboxes.scim.truthLog().length;
    const report = await bench.run({
      requestId: `unusable-${createAnswer}`,
      connector: SCIM,
      account: { accountId, displayName: 'Unusable Answer' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales', 'Support'] }],
    });

    expect(report.steps.map((step) => step.state)).toEqual(['succeeded', 'succeeded']);
    const created = bench.sandboxes.scim.getUser(accountId);
    expect(report.steps[0]!.notices).toEqual([
      `the target created account "${accountId}" but ${fault}; a read by account ID shows it (id ${String(created?.id)})`,
    ]);
    // The truth: one account made, and the grants really ran.
    const changes = bench.sandboxes.scim
      .truthLog()
      .slice(before)
      .filter((event) => event.accountId === accountId)
      .map((event) => event.change);
    expect(changes).toEqual(['account created', 'member added', 'member added']);
    const { scim, scimGroups } = bench.sandboxes;
    expect(scim.groupIdsOf(accountId).sort()).toEqual(
      [scimGroups.Sales, scimGroups.Support].sort(),
    );
    const journal = await bench.journal(SCIM, accountId);
    expect(journal.map((entry) => `${entry.step} ${entry.change}`).sort()).toEqual([
      '0 account created',
      '1 member added',
      '1 member added',
    ]);
  });
});

describe('a create the server failed', () => {
  it('reads back after the last retry, fails with the original error when the account is not there', async () => {
    const accountId = 'unusable.refused';
    // One 502 per attempt (the transport does not retry a 502): the first, sent with the
    // first look at the connector (revision 5), then Durable's three of the create's activity.
    bench.sandboxes.scim.injectServerErrors(4, 502);
    const report = await bench.run({
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
    });
    expect(report.steps.map((step) => step.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]!.error).toMatchObject({ code: 'TARGET_UNAVAILABLE', status: 502 });
    expect(report.steps[0]!.notices[0]).toContain(
      `no read by account ID shows account "${accountId}"`,
    );
    // The read-back was a userName filter, and the target holds no such account.
    const lookups = bench.sandboxes.scim.requests.filter(
      (request) =>
        request.method === 'GET' && request.query.filter === `userName eq "${accountId}"`,
    );
    expect(lookups.length).toBeGreaterThan(0);
    expect(bench.sandboxes.scim.getUser(accountId)).toBeUndefined();
    expect(await bench.journal(SCIM, accountId)).toEqual([]);
  });
});
