import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphSandbox, type GraphSandbox } from '../../../src/sandbox/graph/index.js';
import { graphTestClient, type GraphTestClient } from './graph-test-client';

const DAY_MS = 24 * 60 * 60 * 1000;
let clock = Date.parse('2026-11-22T08:00:00Z');
let sandbox: GraphSandbox;
let client: GraphTestClient;

beforeAll(async () => {
  sandbox = await startGraphSandbox({ now: () => clock, deltaPageSize: 3 });
  client = await graphTestClient(sandbox);
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

type DeltaBody = {
  value: Record<string, unknown>[];
  '@odata.nextLink'?: string;
  '@odata.deltaLink'?: string;
};

/** Every page of a round from `path` (relative) or a link (absolute): items, pages and the delta link. */
async function round(start: string) {
  const items: Record<string, unknown>[] = [];
  let pages = 0;
  let next: string | undefined = start;
  for (;;) {
    const path: string = next.startsWith('https://')
      ? next.slice(`${sandbox.graphEndpoint}/v1.0`.length)
      : next;
    const answer = await client.call('GET', path);
    if (answer.reset) throw new Error(`reset: ${answer.code}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const body = answer.body as unknown as DeltaBody;
    pages += 1;
    items.push(...body.value);
    expect(body['@odata.nextLink'] === undefined).not.toBe(body['@odata.deltaLink'] === undefined);
    if (body['@odata.deltaLink'] !== undefined) {
      return { items, pages, deltaLink: body['@odata.deltaLink'] };
    }
    next = body['@odata.nextLink']!;
  }
}

describe('GET /groups/delta', () => {
  it('lists every group in pages, then reports created, renamed and deleted groups since the delta link', async () => {
    const ids = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon'].map(
      (displayName) => sandbox.addGroup({ displayName }).id,
    );
    const initial = await round('/groups/delta?$select=id,displayName,mailEnabled');
    expect(initial.pages).toBe(2);
    expect(initial.items.map((item) => item.displayName)).toEqual([
      'Alpha',
      'Beta',
      'Gamma',
      'Delta',
      'Epsilon',
    ]);
    expect(Object.keys(initial.items[0]!).sort()).toEqual(['displayName', 'id', 'mailEnabled']);

    const added = sandbox.addGroup({ displayName: 'Zeta' }).id;
    sandbox.updateGroup(ids[1]!, { displayName: 'Beta renamed' });
    sandbox.updateGroup(ids[2]!, { mailEnabled: true });
    sandbox.deleteGroup(ids[3]!);
    const changes = await round(initial.deltaLink);
    expect(changes.pages).toBe(2);
    expect(changes.items).toEqual([
      { id: added, displayName: 'Zeta', mailEnabled: false },
      { id: ids[1], displayName: 'Beta renamed' },
      { id: ids[2], mailEnabled: true },
      { id: ids[3], '@removed': { reason: 'changed' } },
    ]);

    const nothing = await round(changes.deltaLink);
    expect(nothing).toMatchObject({ items: [], pages: 1 });
  });

  it('gives a delta link at the current state for $deltatoken=latest, with no groups', async () => {
    const latest = await round('/groups/delta?$select=id,displayName&$deltatoken=latest');
    expect(latest.items).toEqual([]);
    const id = sandbox.addGroup({ displayName: 'After latest' }).id;
    expect((await round(latest.deltaLink)).items).toEqual([{ id, displayName: 'After latest' }]);
  });

  it('expires tokens after seven days and on expireDeltaTokens(), with 400 syncStateNotFound', async () => {
    const { deltaLink } = await round('/groups/delta?$select=id&$deltatoken=latest');
    clock += 7 * DAY_MS + 1;
    const old = await client.call('GET', deltaLink.slice(`${sandbox.graphEndpoint}/v1.0`.length));
    expect(old).toMatchObject({ status: 400, body: { error: { code: 'syncStateNotFound' } } });

    const fresh = await round('/groups/delta?$select=id&$deltatoken=latest');
    sandbox.expireDeltaTokens();
    const expired = await client.call(
      'GET',
      fresh.deltaLink.slice(`${sandbox.graphEndpoint}/v1.0`.length),
    );
    expect(expired).toMatchObject({ status: 400, body: { error: { code: 'syncStateNotFound' } } });
  });

  it('refuses membership tracking and $filter, which it does not implement, instead of ignoring them', async () => {
    const members = await client.call('GET', '/groups/delta?$select=id,members');
    expect(members).toMatchObject({
      status: 400,
      body: { error: { code: 'Request_UnsupportedQuery' } },
    });
    const filtered = await client.call('GET', "/groups/delta?$filter=id eq 'x'");
    expect(filtered).toMatchObject({ status: 400 });
  });
});
