import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGraphSandbox } from '../../../src/sandbox/graph/index.js';
import type { GraphSandbox, TruthEvent } from '../../../src/sandbox/graph/index.js';
import { graphTestClient, newUserBody } from './graph-test-client.js';
import type { GraphAnswer, GraphTestClient } from './graph-test-client.js';

let clock = 1_700_000_000_000;
let sandbox: GraphSandbox;
let client: GraphTestClient;
let sales: string;
let support: string;

const status = (answer: GraphAnswer) => (answer.reset ? 'reset' : answer.status);
const changes = (events: readonly TruthEvent[]) =>
  events.map((e) => [e.change, e.groupId ?? null, e.cascade ?? false]);

beforeAll(async () => {
  sandbox = await startGraphSandbox({ now: () => clock });
  client = await graphTestClient(sandbox);
  sales = sandbox.addGroup({ displayName: 'Sales' }).id;
  support = sandbox.addGroup({ displayName: 'Support' }).id;
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

beforeEach(() => sandbox.clearTruthLog());

describe('Graph truth view', () => {
  it('records nothing for seeding; answers committed state by UPN in any case', () => {
    const role = sandbox.addDirectoryRole({ displayName: 'Helpdesk' }).id;
    const id = sandbox.addUser({ userPrincipalName: 'Seeded.One@contoso.example' }).id;
    sandbox.addMember(sales, id);
    sandbox.addMember(role, id);
    expect(sandbox.truthLog()).toEqual([]);
    expect(sandbox.userIdByUpn('SEEDED.ONE@contoso.example')).toBe(id);
    expect(sandbox.groupIdsOf(id)).toEqual([sales]);
  });

  it('records each real change of an account once, and nothing for writes that change nothing', async () => {
    const created = await client.call('POST', '/users', newUserBody('Truth.Two'));
    const id = created.reset ? '' : String(created.body['id']);
    const patch = (body: unknown) => client.call('PATCH', `/users/${id}`, body);
    clock += 10;
    expect(status(await patch({ accountEnabled: true, displayName: 'Truth.Two' }))).toBe(204);
    expect(sandbox.truthLog()).toEqual([
      {
        seq: expect.any(Number),
        at: clock - 10,
        change: 'account created',
        accountId: 'truth.two@contoso.example',
        userId: id,
      },
    ]);
    const password = { password: 'Another-Pw-2!', forceChangePasswordNextSignIn: false };
    await patch({ displayName: 'Truth Two', accountEnabled: false, passwordProfile: password });
    await patch({ passwordProfile: password });
    await patch({ accountEnabled: false, jobTitle: null });
    await patch({ accountEnabled: true });
    expect(changes(sandbox.truthLog())).toEqual([
      ['account created', null, false],
      ['account updated', null, false],
      ['password set', null, false],
      ['account locked', null, false],
      ['password set', null, false],
      ['account unlocked', null, false],
    ]);
    const seqs = sandbox.truthLog().map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('records member changes through $ref and members@odata.bind, never a re-add or a re-remove', async () => {
    const id = sandbox.addUser({ userPrincipalName: 'truth.three@contoso.example' }).id;
    const add = () => client.call('POST', `/groups/${sales}/members/$ref`, client.ref(id));
    const bind = () =>
      client.call('PATCH', `/groups/${support}`, {
        'members@odata.bind': [client.ref(id)['@odata.id']],
      });
    const remove = () => client.call('DELETE', `/groups/${sales}/members/${id}/$ref`);
    const answers: (number | 'reset')[] = [];
    for (const write of [add, add, bind, bind, remove, remove]) answers.push(status(await write()));
    expect(answers).toEqual([204, 400, 204, 400, 204, 404]);
    expect(changes(sandbox.truthLog())).toEqual([
      ['member added', sales, false],
      ['member added', support, false],
      ['member removed', sales, false],
    ]);
    expect(sandbox.truthLog()[0]).toMatchObject({
      accountId: 'truth.three@contoso.example',
      userId: id,
    });
    expect(sandbox.groupIdsOf(id)).toEqual([support]);
  });

  it('records a delete with its memberships as cascades, also through members/{id} without $ref', async () => {
    for (const name of ['truth.four', 'truth.five']) {
      const id = sandbox.addUser({ userPrincipalName: `${name}@contoso.example` }).id;
      sandbox.addMember(sales, id);
      sandbox.addMember(support, id);
    }
    const four = sandbox.userIdByUpn('truth.four@contoso.example')!;
    const five = sandbox.userIdByUpn('truth.five@contoso.example')!;
    expect(status(await client.call('DELETE', `/users/${four}`))).toBe(204);
    expect(status(await client.call('DELETE', `/groups/${sales}/members/${five}`))).toBe(204);
    expect(status(await client.call('DELETE', `/users/${four}`))).toBe(404);
    expect(
      sandbox.truthLog().map((e) => [e.change, e.userId, e.groupId ?? null, e.cascade ?? false]),
    ).toEqual([
      ['account deleted', four, null, false],
      ['member removed', four, sales, true],
      ['member removed', four, support, true],
      ['account deleted', five, null, false],
      ['member removed', five, sales, true],
      ['member removed', five, support, true],
    ]);
    expect(sandbox.userIdByUpn('truth.four@contoso.example')).toBeUndefined();
    expect(sandbox.groupIdsOf(four)).toEqual([]);
  });

  it('clearTruthLog empties the log; sequence numbers go on', async () => {
    await client.call('POST', '/users', newUserBody('truth.six'));
    const last = sandbox.truthLog().at(-1)!.seq;
    sandbox.clearTruthLog();
    expect(sandbox.truthLog()).toEqual([]);
    await client.call('POST', '/users', newUserBody('truth.seven'));
    expect(sandbox.truthLog().map((e) => e.seq)).toEqual([last + 1]);
  });
});
