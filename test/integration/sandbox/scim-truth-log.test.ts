import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScimSandbox } from '../../../src/sandbox/scim/index.js';
import type { ScimSandbox, TruthEvent } from '../../../src/sandbox/scim/index.js';
import { outcome, patchOp, scimCall } from './scim-test-client.js';

let clock = 1_700_000_000_000;
let s: ScimSandbox;
let sales: string;
let support: string;

const send = (method: string, path: string, body?: unknown) =>
  scimCall(`${s.endpoint}${path}`, method, body);
const changes = (events: readonly TruthEvent[]) =>
  events.map((e) => [e.change, e.groupId ?? null, e.cascade ?? false]);

async function createUser(userName: string, extra: Record<string, unknown> = {}) {
  const answer = await send('POST', '/Users', { userName, active: true, ...extra });
  if (answer.reset || answer.status !== 201) throw new Error(`create answered ${outcome(answer)}`);
  return String(answer.body?.id);
}

beforeAll(async () => {
  s = await startScimSandbox({ now: () => clock });
  [sales, support] = s
    .seedGroups([{ displayName: 'Sales' }, { displayName: 'Support' }])
    .map((group) => group.id) as [string, string];
});

afterAll(async () => {
  await s.close();
});

beforeEach(() => s.clearTruthLog());

describe('SCIM truth view', () => {
  it('records nothing for seeding', () => {
    s.seedUsers([{ userName: 'seeded.one' }]);
    s.seedGroups([{ displayName: 'Seeded', members: ['seeded.one'] }]);
    expect(s.truthLog()).toEqual([]);
    expect(s.groupIdsOf('seeded.one')).toEqual([s.getGroup('Seeded')?.id]);
  });

  it('records each real change of an account once, and nothing for writes that change nothing', async () => {
    const id = await createUser('ann', { password: 'Fi5st!pw', displayName: 'Ann' });
    expect(s.truthLog()).toEqual([
      {
        seq: expect.any(Number),
        at: clock,
        change: 'account created',
        accountId: 'ann',
        userId: id,
      },
    ]);
    const patch = (...ops: unknown[]) => send('PATCH', `/Users/${id}`, patchOp(...ops));
    clock += 10;
    await patch({ op: 'replace', path: 'active', value: true });
    await patch({ op: 'replace', path: 'displayName', value: 'Ann' });
    await patch({ op: 'replace', path: 'password', value: 'N3w!pass' });
    await patch(
      { op: 'replace', path: 'active', value: false },
      { op: 'replace', path: 'displayName', value: 'Ann Smith' },
    );
    await patch({ op: 'replace', path: 'active', value: false });
    const replaced = await send('PUT', `/Users/${id}`, {
      userName: 'ann',
      displayName: 'Ann Smith',
      active: true,
      password: 'Th1rd!pw',
    });
    expect(outcome(replaced)).toBe(200);
    expect(changes(s.truthLog())).toEqual([
      ['account created', null, false],
      ['password set', null, false],
      ['account updated', null, false],
      ['account locked', null, false],
      ['password set', null, false],
      ['account unlocked', null, false],
    ]);
    expect(s.truthLog()[1]).toMatchObject({ at: clock, accountId: 'ann', userId: id });
  });

  it('records member changes by user, whichever member value names it; never a re-add', async () => {
    const id = await createUser('bob');
    s.clearTruthLog();
    const members = (op: string, value: string, path = 'members') =>
      send('PATCH', `/Groups/${sales}`, patchOp({ op, path, value: [{ value }] }));
    await members('add', 'bob');
    await members('add', 'bob');
    await members('add', id);
    expect(s.groupIdsOf('bob')).toEqual([sales]);
    expect(s.groupIdsOf(id)).toEqual([sales]);
    await send(
      'PATCH',
      `/Groups/${sales}`,
      patchOp({ op: 'remove', path: 'members[value eq "bob"]' }),
    );
    expect(s.groupIdsOf(id)).toEqual([sales]);
    await members('remove', id);
    await members('remove', id);
    await send(
      'PATCH',
      `/Groups/${support}`,
      patchOp({ op: 'replace', path: 'members', value: [{ value: id }] }),
    );
    expect(s.truthLog().map((e) => [e.change, e.accountId, e.userId, e.groupId])).toEqual([
      ['member added', 'bob', id, sales],
      ['member removed', 'bob', id, sales],
      ['member added', 'bob', id, support],
    ]);
  });

  it('records groups created with members, and deletes with their memberships as cascades', async () => {
    const id = await createUser('cid');
    const created = await send('POST', '/Groups', {
      displayName: 'Temp',
      members: [{ value: 'cid' }],
    });
    const temp = created.reset ? '' : String(created.body?.id);
    await send(
      'PATCH',
      `/Groups/${sales}`,
      patchOp({ op: 'add', path: 'members', value: [{ value: id }] }),
    );
    expect(s.groupIdsOf('cid').sort()).toEqual([sales, temp].sort());
    expect(outcome(await send('DELETE', `/Users/${id}`))).toBe(204);
    expect(s.groupIdsOf('cid')).toEqual([]);
    expect(s.getGroup(temp)?.members).toBeUndefined();
    const dee = await createUser('dee');
    const doomed = s.seedGroups([{ displayName: 'Doomed' }])[0]!.id;
    await send(
      'PATCH',
      `/Groups/${doomed}`,
      patchOp({ op: 'add', path: 'members', value: [{ value: 'dee' }] }),
    );
    expect(outcome(await send('DELETE', `/Groups/${doomed}`))).toBe(204);
    expect(
      s.truthLog().map((e) => [e.change, e.accountId, e.groupId ?? null, e.cascade ?? false]),
    ).toEqual([
      ['account created', 'cid', null, false],
      ['member added', 'cid', temp, false],
      ['member added', 'cid', sales, false],
      ['account deleted', 'cid', null, false],
      ['member removed', 'cid', sales, true],
      ['member removed', 'cid', temp, true],
      ['account created', 'dee', null, false],
      ['member added', 'dee', doomed, false],
      ['member removed', 'dee', doomed, true],
    ]);
    expect(s.truthLog().at(-1)?.userId).toBe(dee);
  });
});
