import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GraphConnector } from '../../../src/connectors/graph';
import type { CatalogueChange } from '../../../src/domain/catalogue-changes';
import { ADMIN, failureOf, requestLines, startHarness, type Harness } from './graph-harness';

let harness: Harness;
let graph: GraphConnector;

beforeAll(async () => {
  harness = await startHarness({ clients: [ADMIN], deltaPageSize: 2 });
  graph = harness.connector();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => {
  harness.sandbox.clearRequests();
});

/** Every change since the cursor, the pages they came in and the next cursor. */
async function changesSince(cursor: string) {
  const changes: CatalogueChange[] = [];
  const pages: number[] = [];
  let next: string | undefined;
  for await (const page of graph.groupChanges.changesSince(cursor)) {
    changes.push(...page.changes);
    pages.push(page.changes.length);
    if (page.cursor !== undefined) next = page.cursor;
  }
  return { changes, pages, next };
}

describe('Graph group change feed (groups/delta)', () => {
  it('follows nextLink until the deltaLink, reads partial groups whole by $batch, and reports removals', async () => {
    const sandbox = harness.sandbox;
    const keep = sandbox.addGroup({ displayName: 'Feed keep' }).id;
    const rename = sandbox.addGroup({ displayName: 'Feed rename' }).id;
    const remove = sandbox.addGroup({ displayName: 'Feed remove' }).id;
    const cursor = await graph.groupChanges.latestCursor();
    expect(requestLines(sandbox)).toEqual(['GET /v1.0/groups/delta']);
    sandbox.clearRequests();

    const added = sandbox.addGroup({
      displayName: 'Feed dynamic',
      groupTypes: ['DynamicMembership'],
      membershipRule: 'user.city -eq "Oslo"',
    }).id;
    sandbox.updateGroup(rename, { displayName: 'Feed renamed' });
    sandbox.updateGroup(keep, { mailEnabled: true });
    sandbox.deleteGroup(remove);
    const { changes, pages, next } = await changesSince(cursor);

    expect(pages).toEqual([2, 2]);
    expect(changes).toEqual([
      {
        kind: 'present',
        group: {
          id: added,
          displayName: 'Feed dynamic',
          writable: false,
          notWritableReason: 'dynamic membership: members follow a rule (user.city -eq "Oslo")',
        },
      },
      { kind: 'present', group: { id: rename, displayName: 'Feed renamed', writable: true } },
      {
        kind: 'removed',
        groupId: remove,
      },
      {
        kind: 'present',
        group: {
          id: keep,
          displayName: 'Feed keep',
          writable: false,
          notWritableReason: 'mail-enabled security group: members are managed in Exchange',
        },
      },
    ]);
    // Two delta pages; each page's partial groups (renamed: id + displayName; mail-enabled:
    // id + mailEnabled) read whole in one $batch.
    expect(requestLines(sandbox)).toEqual([
      'GET /v1.0/groups/delta',
      'POST /v1.0/$batch',
      `GET /v1.0/groups/${rename} (batch)`,
      'GET /v1.0/groups/delta',
      'POST /v1.0/$batch',
      `GET /v1.0/groups/${keep} (batch)`,
    ]);
    expect(next).toMatch(new RegExp(`^${harness.sandbox.graphEndpoint}/v1.0/groups/delta\\?`));
    expect((await changesSince(next!)).changes).toEqual([]);
  });

  it('refuses a cursor of another endpoint and an expired one with CATALOGUE_CURSOR_EXPIRED', async () => {
    const foreign = await failureOf(
      changesSince('https://graph.example.com/v1.0/groups/delta?$deltatoken=x'),
    );
    expect(foreign.code).toBe('CATALOGUE_CURSOR_EXPIRED');
    expect(foreign.message).toContain('not one of');
    expect(harness.sandbox.requests).toEqual([]);

    const cursor = await graph.groupChanges.latestCursor();
    harness.sandbox.expireDeltaTokens();
    const expired = await failureOf(changesSince(cursor));
    expect(expired.code).toBe('CATALOGUE_CURSOR_EXPIRED');
    expect(expired.message).toContain('Graph answered 400 syncStateNotFound');
  });
});
