import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GraphConnector } from '../../../src/connectors/graph';
import { SEARCH_MATCH_LIMIT } from '../../../src/connectors/connector';
import type { GroupRef } from '../../../src/domain/group';
import type { SandboxGroupSeed } from '../../../src/sandbox/graph';
import { ADMIN, requestLines, startHarness, type Harness } from './graph-harness';

let harness: Harness;
let graph: GraphConnector;

beforeAll(async () => {
  harness = await startHarness({ clients: [ADMIN] });
  graph = harness.connector();
});

afterAll(async () => {
  await harness.close();
});

beforeEach(() => {
  harness.sandbox.clearRequests();
  harness.sandbox.setThrottle(undefined);
});

const group = (displayName: string, extra: Omit<SandboxGroupSeed, 'displayName'> = {}) =>
  harness.sandbox.addGroup({ ...extra, displayName }).id;

/** A chain of `length` groups, each nested in the one before; returns their ids, top first. */
function chain(label: string, length: number): string[] {
  const ids = Array.from({ length }, (_, i) => group(`${label}-${i}`));
  for (let i = 1; i < length; i++) harness.sandbox.addMember(ids[i - 1]!, ids[i]!);
  return ids;
}

describe('group catalogue', () => {
  it('imports every page with the writability of each group', async () => {
    group('Cat plain');
    group('Cat dynamic', {
      groupTypes: ['DynamicMembership'],
      membershipRule: 'user.city -eq "Oslo"',
    });
    group('Cat synced', { onPremisesSyncEnabled: true });
    group('Cat mail', { mailEnabled: true, securityEnabled: true });
    group('Cat roles', { isAssignableToRole: true });
    const small = harness.connector({ pageSize: 2 });
    const imported: GroupRef[] = [];
    for await (const ref of small.importGroups()) imported.push(ref);
    const byName = new Map(imported.map((ref) => [ref.displayName, ref]));
    expect(byName.get('Cat plain')).toMatchObject({ writable: true });
    for (const name of ['Cat dynamic', 'Cat synced', 'Cat mail', 'Cat roles']) {
      expect(byName.get(name)).toMatchObject({
        writable: false,
        notWritableReason: expect.any(String) as unknown,
      });
    }
    const pages = requestLines(harness.sandbox).filter(
      (line) => line === 'GET /v1.0/groups',
    ).length;
    expect(pages).toBe(Math.ceil(imported.length / 2));
  });

  it('finds a group by exact name and searches by prefix', async () => {
    const id = group("Finance O'Neil");
    group('Finance EU');
    expect(await graph.findGroup("Finance O'Neil")).toMatchObject({ id, writable: true });
    expect(await graph.findGroup('No such group')).toBeUndefined();
    const found = await graph.searchGroups('Finance');
    expect(found.map((ref) => ref.displayName).sort()).toEqual(['Finance EU', "Finance O'Neil"]);
  });

  it('a live search reads every page of matches, following each nextLink', async () => {
    for (let i = 0; i < 5; i++) group(`Project ${i}`);
    group('Other project');
    const paged = harness.connector({ pageSize: 2 });
    harness.sandbox.clearRequests();
    const found = await paged.searchGroups('Project');
    expect(found.map((ref) => ref.displayName).sort()).toEqual(
      Array.from({ length: 5 }, (_, i) => `Project ${i}`),
    );
    expect(requestLines(harness.sandbox)).toEqual(Array(3).fill('GET /v1.0/groups'));
  });

  it('a search that matches more than the limit is refused, not cut short', async () => {
    for (let i = 0; i <= SEARCH_MATCH_LIMIT; i++) group(`Broad ${i}`);
    const paged = harness.connector({ pageSize: 999 });
    await expect(paged.searchGroups('Broad')).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
      message: expect.stringContaining(
        `more than ${SEARCH_MATCH_LIMIT} groups starting with "Broad"`,
      ) as unknown,
    });
  });

  it('two groups with one name are a conflict, not a guess', async () => {
    group('Twin');
    group('Twin');
    await expect(graph.findGroup('Twin')).rejects.toMatchObject({ code: 'GRAPH_CONFLICT' });
  });
});

describe('nested group structure', () => {
  it('reads the structure level by level, with paths; round trips grow with depth', async () => {
    const top = group('Org');
    const units = Array.from({ length: 30 }, (_, i) => group(`Unit ${i}`));
    for (const unit of units) harness.sandbox.addMember(top, unit);
    const teams = units.map((unit, i) => {
      const team = group(`Team ${i}`);
      harness.sandbox.addMember(unit, team);
      return team;
    });
    const user = harness.sandbox.addUser({ userPrincipalName: 'nested.user@contoso.example' }).id;
    harness.sandbox.addMember(teams[0]!, user);
    const structure = await graph.readGroupStructure(top);
    expect(structure.root).toEqual({ id: top, displayName: 'Org' });
    expect(structure.groups).toHaveLength(61);
    expect(
      structure.groups.find((entry) => entry.id === teams[3])?.path.map((step) => step.displayName),
    ).toEqual(['Org', 'Unit 3', 'Team 3']);
    expect(structure.complete).toBe(true);
    expect(structure.notices).toEqual([]);
    // Each group's direct members of every kind, as the directory holds them: counted from the
    // pages the walk read, no call more.
    for (const entry of structure.groups) {
      expect(entry.memberCount, entry.displayName).toBe(
        harness.sandbox.directMemberIds(entry.id).length,
      );
    }
    expect(structure.groups.find((entry) => entry.id === teams[0])?.memberCount).toBe(1);
    expect(structure.groups.find((entry) => entry.id === top)?.memberCount).toBe(30);
    // Root + 30 units + 30 teams in 3 levels: 3 round trips, not 61.
    expect(structure.stats.roundTrips).toBe(3);
    // The root and its members, then two $batch envelopes (20 + 10) for each of two levels.
    expect(structure.stats.requests).toBe(6);
    expect(requestLines(harness.sandbox).filter((line) => !line.endsWith('(batch)'))).toHaveLength(
      structure.stats.requests,
    );
  });

  it('a cycle is a notice, not a failure', async () => {
    const [a, b, c] = chain('Cycle', 3);
    harness.sandbox.addMember(c!, a!);
    const structure = await graph.readGroupStructure(a!);
    expect(structure.groups.map((entry) => entry.displayName)).toEqual([
      'Cycle-0',
      'Cycle-1',
      'Cycle-2',
    ]);
    expect(structure.notices).toEqual([
      expect.objectContaining({ kind: 'cycle', groupIds: [a, b, c] }),
    ]);
  });

  it('stops at 32 levels with a notice', async () => {
    const ids = chain('Deep', 40);
    const structure = await graph.readGroupStructure(ids[0]!);
    expect(Math.max(...structure.groups.map((entry) => entry.depth))).toBe(32);
    expect(structure.complete).toBe(false);
    expect(structure.notices).toEqual([
      expect.objectContaining({ kind: 'depth-limit', groupIds: [ids[33]] }),
    ]);
    expect(structure.stats.roundTrips).toBe(33);
  });

  it('stops at 500 groups with a notice', async () => {
    const top = group('Wide');
    for (let i = 0; i < 520; i++) harness.sandbox.addMember(top, group(`Wide child ${i}`));
    const structure = await graph.readGroupStructure(top);
    expect(structure.groups).toHaveLength(500);
    expect(structure.complete).toBe(false);
    expect(structure.notices[0]).toMatchObject({ kind: 'group-limit' });
    expect(structure.notices[0]?.groupIds).toHaveLength(21);
  });

  it('an unknown root group fails', async () => {
    await expect(
      graph.readGroupStructure('00000000-0000-0000-0000-000000000000'),
    ).rejects.toMatchObject({
      code: 'GROUP_NOT_FOUND',
    });
  });
});

describe('effective inherited memberships', () => {
  it('lists each inherited group with the path that grants it; roles and units are left out', async () => {
    const [all, region, team] = chain('Inherit', 3);
    const other = group('Inherit other');
    const user = harness.sandbox.addUser({ userPrincipalName: 'inherit@contoso.example' }).id;
    harness.sandbox.addMember(team!, user);
    harness.sandbox.addMember(other, user);
    const unit = harness.sandbox.addAdministrativeUnit({ displayName: 'Unit with groups' }).id;
    harness.sandbox.addMember(unit, region!);
    const result = await graph.readInheritedMemberships({
      id: user,
      accountId: 'inherit@contoso.example',
      enabled: true,
    });
    expect(result.direct.map((link) => link.displayName).sort()).toEqual([
      'Inherit other',
      'Inherit-2',
    ]);
    expect(result.inherited).toEqual([
      {
        id: region,
        displayName: 'Inherit-1',
        alsoDirect: false,
        path: [
          { id: team, displayName: 'Inherit-2' },
          { id: region, displayName: 'Inherit-1' },
        ],
      },
      {
        id: all,
        displayName: 'Inherit-0',
        alsoDirect: false,
        path: [
          { id: team, displayName: 'Inherit-2' },
          { id: region, displayName: 'Inherit-1' },
          { id: all, displayName: 'Inherit-0' },
        ],
      },
    ]);
    expect(result.notices).toEqual([]);
    expect(result.complete).toBe(true);
  });
});
