import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphSandbox, type GraphSandbox } from '../../../src/sandbox/graph/index.js';
import { graphTestClient, type GraphAnswer, type GraphTestClient } from './graph-test-client';

const DAY_MS = 24 * 60 * 60 * 1000;
let clock = Date.parse('2026-11-22T08:00:00Z');
let sandbox: GraphSandbox;
let client: GraphTestClient;

beforeAll(async () => {
  sandbox = await startGraphSandbox({
    now: () => clock,
    deltaPageSize: 3,
    deltaReferencesPerPage: 2,
  });
  client = await graphTestClient(sandbox);
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

/** The status of an answer, or 'reset'. */
const statusOf = (answer: GraphAnswer): number | 'reset' =>
  answer.reset ? 'reset' : answer.status;

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

  it('tracks members: every member in the initial round, large groups over several pages, then adds and removals', async () => {
    const big = sandbox.addGroup({ displayName: 'Members big' }).id;
    const small = sandbox.addGroup({ displayName: 'Members small' }).id;
    const users = ['m1', 'm2', 'm3', 'm4', 'm5'].map(
      (name) => sandbox.addUser({ userPrincipalName: `${name}@contoso.example` }).id,
    );
    for (const user of users) sandbox.addMember(big, user);
    sandbox.addMember(small, users[0]!);
    const filter = `id eq '${big}' or id eq '${small}'`;
    const initial = await round(`/groups/delta?$select=members&$filter=${filter}`);
    // 5 members over pages of at most 2 references: the group comes three times.
    const bigParts = initial.items.filter((item) => item.id === big);
    expect(bigParts).toHaveLength(3);
    const listed = bigParts.flatMap((item) => item['members@delta'] as { id: string }[]);
    expect(listed.map((member) => member.id).sort()).toEqual([...users].sort());
    expect(listed[0]).toEqual({ '@odata.type': '#microsoft.graph.user', id: listed[0]!.id });
    expect(initial.items.filter((item) => item.id === small)).toEqual([
      { id: small, 'members@delta': [{ '@odata.type': '#microsoft.graph.user', id: users[0] }] },
    ]);

    const test = await graphTestClient(sandbox);
    try {
      expect(statusOf(await test.call('DELETE', `/groups/${big}/members/${users[1]}/$ref`))).toBe(
        204,
      );
      expect(
        statusOf(await test.call('POST', `/groups/${small}/members/$ref`, test.ref(users[2]!))),
      ).toBe(204);
    } finally {
      await test.close();
    }
    const other = sandbox.addGroup({ displayName: 'Not filtered' }).id;
    sandbox.addMember(other, users[3]!);
    const changes = await round(initial.deltaLink);
    expect(changes.items).toEqual([
      {
        id: big,
        'members@delta': [
          {
            '@odata.type': '#microsoft.graph.user',
            id: users[1],
            '@removed': { reason: 'deleted' },
          },
        ],
      },
      { id: small, 'members@delta': [{ '@odata.type': '#microsoft.graph.user', id: users[2] }] },
    ]);
  });

  it('refuses any $filter but id eq, more than 50 ids, and relationships it does not track', async () => {
    const other = await client.call('GET', "/groups/delta?$filter=displayName eq 'x'");
    expect(other).toMatchObject({
      status: 400,
      body: { error: { code: 'Request_UnsupportedQuery' } },
    });
    const ids = Array.from({ length: 51 }, (_, i) => `id eq '${String(i)}'`).join(' or ');
    expect(await client.call('GET', `/groups/delta?$filter=${ids}`)).toMatchObject({ status: 400 });
    expect(await client.call('GET', '/groups/delta?$select=id,owners')).toMatchObject({
      status: 400,
    });
  });

  it('serves a round from a replica: a change shows only once replicated, in the next round if not this one', async () => {
    const group = sandbox.addGroup({ displayName: 'Lagging' }).id;
    const user = sandbox.addUser({ userPrincipalName: 'lag.user@contoso.example' }).id;
    const first = await round(`/groups/delta?$select=members&$filter=id eq '${group}'`);
    sandbox.setReplicationDelay(10_000);
    const test = await graphTestClient(sandbox);
    try {
      expect(
        statusOf(await test.call('POST', `/groups/${group}/members/$ref`, test.ref(user))),
      ).toBe(204);
    } finally {
      await test.close();
    }
    const early = await round(first.deltaLink);
    expect(early.items).toEqual([]);
    clock += 10_000;
    const later = await round(early.deltaLink);
    expect(later.items).toEqual([
      { id: group, 'members@delta': [{ '@odata.type': '#microsoft.graph.user', id: user }] },
    ]);
    sandbox.setReplicationDelay(0);
  });
});

describe('GET /users/delta', () => {
  it('lists every user, then the created, changed and deleted ones with their selected properties', async () => {
    const kept = sandbox.addUser({ userPrincipalName: 'delta.kept@contoso.example' }).id;
    const initial = await round('/users/delta?$select=id,userPrincipalName,accountEnabled');
    expect(initial.items).toContainEqual({
      id: kept,
      userPrincipalName: 'delta.kept@contoso.example',
      accountEnabled: true,
    });
    const test = await graphTestClient(sandbox);
    let created: string;
    try {
      const answer = await test.call('POST', '/users', {
        accountEnabled: true,
        displayName: 'New',
        mailNickname: 'delta.new',
        userPrincipalName: 'delta.new@contoso.example',
        passwordProfile: { password: 'Passw0rd!Passw0rd', forceChangePasswordNextSignIn: false },
      });
      expect(statusOf(answer)).toBe(201);
      created = answer.reset ? '' : String(answer.body.id);
      expect(statusOf(await test.call('PATCH', `/users/${kept}`, { accountEnabled: false }))).toBe(
        204,
      );
      const gone = sandbox.addUser({ userPrincipalName: 'delta.gone@contoso.example' }).id;
      expect(statusOf(await test.call('DELETE', `/users/${gone}`))).toBe(204);
      const changes = await round(initial.deltaLink);
      expect(changes.items).toEqual([
        { id: created, userPrincipalName: 'delta.new@contoso.example', accountEnabled: true },
        { id: kept, userPrincipalName: 'delta.kept@contoso.example', accountEnabled: false },
        { id: gone, '@removed': { reason: 'changed' } },
      ]);
    } finally {
      await test.close();
    }
  });
});
