import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGraphSandbox } from '../../../src/sandbox/graph/index.js';
import type { GraphSandbox } from '../../../src/sandbox/graph/index.js';
import { graphTestClient, newUserBody } from './graph-test-client.js';
import type { GraphAnswer, GraphTestClient } from './graph-test-client.js';

let clock = 1_700_000_000_000;
let sandbox: GraphSandbox;
let client: GraphTestClient;
let groupId: string;
let serial = 0;

const status = (answer: GraphAnswer) => (answer.reset ? 'reset' : answer.status);
const ids = (answer: GraphAnswer) =>
  answer.reset ? [] : (answer.body.value ?? []).map((o) => o.id);

async function createUser(prefix: string): Promise<string> {
  const created = await client.call('POST', '/users', newUserBody(`${prefix}${++serial}`));
  if (created.reset || created.status !== 201)
    throw new Error(`create answered ${status(created)}`);
  return String(created.body['id']);
}

beforeAll(async () => {
  sandbox = await startGraphSandbox({ now: () => clock });
  client = await graphTestClient(sandbox);
  groupId = sandbox.addGroup({ displayName: 'Consistency' }).id;
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

beforeEach(() => {
  sandbox.setFaults(undefined);
  sandbox.setReplicationDelay(0);
  sandbox.setNewObjectWriteLag(0);
});

describe('new object write lag', () => {
  it('answers writes naming a just-created user 404, changing nothing, until its lag has passed', async () => {
    sandbox.setNewObjectWriteLag(2_000);
    const id = await createUser('fresh');
    const notFound = {
      status: 404,
      body: {
        error: {
          code: 'Request_ResourceNotFound',
          message: `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
        },
      },
    };
    clock += 1_999;
    expect(await client.call('PATCH', `/users/${id}`, { jobTitle: 'Dev' })).toMatchObject(notFound);
    expect(
      await client.call('POST', `/groups/${groupId}/members/$ref`, client.ref(id)),
    ).toMatchObject(notFound);
    expect(await client.call('DELETE', `/groups/${groupId}/members/${id}/$ref`)).toMatchObject(
      notFound,
    );
    const batch = await client.call('POST', '/$batch', {
      requests: [
        {
          id: '1',
          method: 'POST',
          url: `/groups/${groupId}/members/$ref`,
          headers: { 'content-type': 'application/json' },
          body: client.ref(id),
        },
      ],
    });
    expect(batch.reset ? undefined : batch.body.responses?.[0]?.status).toBe(404);
    expect(await client.call('DELETE', `/users/${id}`)).toMatchObject(notFound);
    expect(sandbox.getUser(id)?.['jobTitle']).toBeUndefined();
    expect(sandbox.groupIdsOf(id)).toEqual([]);
    expect(sandbox.faultCounts()['new object 404']).toBe(5);
    // Reads are not held back by the write lag.
    expect(status(await client.call('GET', `/users/${id}`))).toBe(200);

    clock += 1;
    expect(
      status(await client.call('POST', `/groups/${groupId}/members/$ref`, client.ref(id))),
    ).toBe(204);
    expect(status(await client.call('PATCH', `/users/${id}`, { jobTitle: 'Dev' }))).toBe(204);
    expect(sandbox.groupIdsOf(id)).toEqual([groupId]);
  });

  it('draws each new user its own lag from a range', async () => {
    sandbox.setNewObjectWriteLag({ min: 0, max: 10_000 });
    const created: string[] = [];
    for (let i = 0; i < 8; i++) created.push(await createUser('ranged'));
    clock += 5_000;
    const answers: (number | 'reset')[] = [];
    for (const id of created)
      answers.push(status(await client.call('PATCH', `/users/${id}`, { jobTitle: 'X' })));
    expect(new Set(answers)).toEqual(new Set([204, 404]));
    clock += 5_000;
    for (const id of created) {
      expect(status(await client.call('PATCH', `/users/${id}`, { jobTitle: 'Y' }))).toBe(204);
    }
  });
});

describe('replica reads', () => {
  it('two reads in a row may disagree, and a later read may show an older state', async () => {
    sandbox.setReplicationDelay({ min: 0, max: 25_000 });
    sandbox.setFaults({ seed: 21 });
    const id = await createUser('replica');
    clock += 12_500;
    const seen: (number | 'reset')[] = [];
    for (let i = 0; i < 20; i++) seen.push(status(await client.call('GET', `/users/${id}`)));
    expect(new Set(seen)).toEqual(new Set([200, 404]));
    const olderAfterNewer = seen.findIndex((s, i) => s === 200 && seen[i + 1] === 404);
    expect(olderAfterNewer).toBeGreaterThanOrEqual(0);
    expect(sandbox.faultCounts()['stale read']).toBe(seen.filter((s) => s === 404).length);
    // The truth never lags.
    expect(sandbox.getUser(id)).toBeDefined();
  });

  it('filters, memberOf and members read replicas too; writes act on the committed state', async () => {
    sandbox.setReplicationDelay({ min: 0, max: 25_000 });
    const id = sandbox.addUser({
      userPrincipalName: `replica.member${++serial}@contoso.example`,
    }).id;
    const upn = String(sandbox.getUser(id)?.['userPrincipalName']);
    sandbox.setFaults({ seed: 22 });
    expect(
      status(await client.call('POST', `/groups/${groupId}/members/$ref`, client.ref(id))),
    ).toBe(204);
    expect(status(await client.call('PATCH', `/users/${id}`, { displayName: 'Renamed' }))).toBe(
      204,
    );
    clock += 12_500;
    const memberOf: boolean[] = [];
    const members: boolean[] = [];
    const names: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      memberOf.push(ids(await client.call('GET', `/users/${id}/memberOf`)).includes(groupId));
      members.push(ids(await client.call('GET', `/groups/${groupId}/members`)).includes(id));
      const filtered = await client.call('GET', `/users?$filter=userPrincipalName eq '${upn}'`);
      names.push(filtered.reset ? undefined : filtered.body.value?.[0]?.['displayName']);
    }
    expect(new Set(memberOf)).toEqual(new Set([true, false]));
    expect(new Set(members)).toEqual(new Set([true, false]));
    expect(new Set(names)).toEqual(new Set(['Renamed', upn.split('@')[0]]));
    // Whatever a replica says, the primary knows the member is there.
    const again = await client.call('POST', `/groups/${groupId}/members/$ref`, client.ref(id));
    expect(again).toMatchObject({ status: 400, body: { error: { code: 'Request_BadRequest' } } });
    expect(sandbox.faultCounts()['stale read']).toBeGreaterThan(0);
  });

  it('draws the same replica delays again from the same seed', async () => {
    sandbox.setReplicationDelay({ min: 0, max: 25_000 });
    const id = await createUser('seeded');
    clock += 12_500;
    const run = async () => {
      sandbox.setFaults({ seed: 23 });
      const seen: (number | 'reset')[] = [];
      for (let i = 0; i < 16; i++) seen.push(status(await client.call('GET', `/users/${id}`)));
      return seen;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 404]));
  });
});
