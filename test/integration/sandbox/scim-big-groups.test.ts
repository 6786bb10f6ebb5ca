import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScimSandbox, type ScimSandbox } from '../../../src/sandbox/scim/index.js';
import { patchOp, scimCall } from './scim-test-client.js';

/**
 * The SCIM sandbox holds groups of 100,000 members as a real server would: a PATCH changes
 * what it names, a members filter answers about one member, and the truth log records the
 * change alone.
 */
let s: ScimSandbox;
let big: string;
let userId: string;
const SIZE = 100_000;

const send = (method: string, path: string, body?: unknown) =>
  scimCall(`${s.endpoint}${path}`, method, body);
const filtered = (filter: string) =>
  send('GET', `/Groups?filter=${encodeURIComponent(filter)}&attributes=id`);

beforeAll(async () => {
  s = await startScimSandbox();
  const members = Array.from({ length: SIZE }, (_, i) => `m.${i}`);
  big = s.seedGroups([{ displayName: 'All Employees', members }])[0]!.id;
  userId = s.seedUsers([{ userName: 'New.Hire' }])[0]!.id;
});
afterAll(() => s.close());

describe('a group of 100,000 members', () => {
  it('takes a member in and out by PATCH, the others untouched, the truth log naming that one', async () => {
    s.clearTruthLog();
    const add = await send(
      'PATCH',
      `/Groups/${big}?excludedAttributes=members`,
      patchOp({ op: 'add', path: 'members', value: [{ value: 'new.hire' }] }),
    );
    expect(add).toMatchObject({ status: 200, body: { id: big, displayName: 'All Employees' } });
    expect(add.reset === false && add.body?.members).toBeUndefined();
    // The same account under its id: no change of membership (userName compares in any case).
    await send(
      'PATCH',
      `/Groups/${big}`,
      patchOp({ op: 'add', path: 'members', value: [{ value: userId }] }),
    );
    await send(
      'PATCH',
      `/Groups/${big}`,
      patchOp({ op: 'remove', path: `members[value eq "${userId}"]` }),
    );
    expect(s.truthLog().map((e) => [e.change, e.accountId, e.groupId])).toEqual([
      ['member added', 'New.Hire', big],
    ]);
    expect(s.getGroup(big)?.members).toHaveLength(SIZE + 1);

    await send(
      'PATCH',
      `/Groups/${big}`,
      patchOp({ op: 'remove', path: 'members[value eq "new.hire"]' }),
    );
    expect(s.truthLog().at(-1)).toMatchObject({ change: 'member removed', groupId: big });
    expect(s.getGroup(big)?.members).toHaveLength(SIZE);
    expect(s.groupIdsOf('new.hire')).toEqual([]);
  });

  it('answers the members filter about one member, and reads whole only when asked for the group', async () => {
    expect(await filtered(`id eq "${big}" and members eq "m.99999"`)).toMatchObject({
      body: { totalResults: 1, Resources: [{ id: big }] },
    });
    expect(await filtered(`id eq "${big}" and members.value eq "nobody"`)).toMatchObject({
      body: { totalResults: 0 },
    });
    const before = s.bytesServed;
    await filtered(`id eq "${big}" and members eq "m.1"`);
    expect(s.bytesServed - before).toBeLessThan(1_000);
    const whole = await send('GET', `/Groups/${big}`);
    expect(whole.reset === false && (whole.body?.members as unknown[]).length).toBe(SIZE);
    expect(s.bytesServed - before).toBeGreaterThan(SIZE * 10);
  });

  it('refuses, ignores or is blind to the member clause as told (quirk membersFilter)', async () => {
    s.setQuirks({ membersFilter: 'refused' });
    expect(await filtered(`id eq "${big}" and members eq "nobody"`)).toMatchObject({
      status: 400,
      body: { scimType: 'invalidFilter' },
    });
    s.setQuirks({ membersFilter: 'ignored' });
    expect(await filtered(`id eq "${big}" and members eq "nobody"`)).toMatchObject({
      body: { totalResults: 1 },
    });
    // Blind: a real member matches no group, while the group itself still lists it.
    s.setQuirks({ membersFilter: 'blind' });
    expect(await filtered(`id eq "${big}" and members eq "m.1"`)).toMatchObject({
      body: { totalResults: 0 },
    });
    s.setQuirks({ membersFilter: 'blind', notFoundOnEmptyFilter: true });
    expect(await filtered(`id eq "${big}" and members eq "m.1"`)).toMatchObject({ status: 404 });
    const whole = await send('GET', `/Groups/${big}`);
    const listed = whole.reset === false ? (whole.body?.members as Array<{ value: string }>) : [];
    expect(listed.some((member) => member.value === 'm.1')).toBe(true);
    s.setQuirks({});
  });
});

describe('a sandbox started from a snapshot of another', () => {
  it('answers the members filter and takes members out as the first did', async () => {
    const first = await startScimSandbox();
    const [group] = first.seedGroups([{ displayName: 'Kept', members: ['kept.one', 'kept.two'] }]);
    const snapshot = first.snapshot();
    await first.close();
    const second = await startScimSandbox({ restore: snapshot });
    try {
      const asked = await scimCall(
        `${second.endpoint}/Groups?filter=${encodeURIComponent(`id eq "${group!.id}" and members eq "kept.one"`)}`,
      );
      expect(asked).toMatchObject({ body: { totalResults: 1 } });
      await scimCall(
        `${second.endpoint}/Groups/${group!.id}`,
        'PATCH',
        patchOp({ op: 'remove', path: 'members[value eq "kept.one"]' }),
      );
      expect(second.getGroup(group!.id)?.members).toEqual([{ value: 'kept.two' }]);
    } finally {
      await second.close();
    }
  });
});
