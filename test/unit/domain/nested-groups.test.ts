import { describe, expect, it } from 'vitest';
import {
  findCycles,
  inheritedMemberships,
  NestedGroupWalk,
  type GroupLink,
  type NestedGroupLimits,
} from '../../../src/domain/nested-groups';

const g = (id: string): GroupLink => ({ id, displayName: id.toUpperCase() });

/** Runs a walk over an in-memory relation, level by level, as a reader would. */
function walkOver(
  relation: Record<string, string[]>,
  starts: string[],
  limits?: NestedGroupLimits,
  unreadable: string[] = [],
) {
  const walk = new NestedGroupWalk(starts.map(g), 'members', limits);
  const levels: string[][] = [];
  while (!walk.done) {
    const frontier = walk.frontier().map((group) => group.id);
    levels.push(frontier);
    // Answers recorded in reverse: parallel reads finish in any order.
    for (const id of [...frontier].reverse()) {
      if (unreadable.includes(id)) walk.recordUnreadable(id, 'GRAPH_PERMISSION_MISSING, HTTP 403');
      else walk.record(id, (relation[id] ?? []).map(g));
    }
    walk.advance();
  }
  return { result: walk.result(), levels };
}

describe('NestedGroupWalk', () => {
  it('reads level by level and records the first path to each group', () => {
    const { result, levels } = walkOver({ a: ['b', 'c'], b: ['d'], c: ['d'] }, ['a']);
    expect(levels).toEqual([['a'], ['b', 'c'], ['d']]);
    expect(result.groups.map((group) => [group.id, group.depth])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 1],
      ['d', 2],
    ]);
    expect(result.groups.find((group) => group.id === 'd')?.path.map((step) => step.id)).toEqual([
      'a',
      'b',
      'd',
    ]);
    expect(result.complete).toBe(true);
    expect(result.notices).toEqual([]);
    expect(result.levelsRead).toBe(3);
  });

  it('reports a cycle as a notice, lists each group once and stops', () => {
    const { result } = walkOver({ a: ['b'], b: ['c'], c: ['a'] }, ['a']);
    expect(result.groups.map((group) => group.id)).toEqual(['a', 'b', 'c']);
    expect(result.notices).toHaveLength(1);
    expect(result.notices[0]).toMatchObject({ kind: 'cycle', groupIds: ['a', 'b', 'c'] });
    expect(result.notices[0]?.message).toContain('A (a) -> B (b) -> C (c) -> A (a)');
    expect(result.complete).toBe(true);
  });

  it('finds a cycle that does not pass through the first path of its groups', () => {
    // r -> b, r -> c; b -> d -> c -> b is a cycle although c is reached from r directly.
    const { result } = walkOver({ r: ['b', 'c'], b: ['d'], d: ['c'], c: ['b'] }, ['r']);
    expect(result.notices.map((notice) => notice.kind)).toEqual(['cycle']);
    expect([...(result.notices[0]?.groupIds ?? [])].sort()).toEqual(['b', 'c', 'd']);
  });

  it('a group nested in itself is a cycle of one', () => {
    const { result } = walkOver({ a: ['a'] }, ['a']);
    expect(result.notices[0]).toMatchObject({ kind: 'cycle', groupIds: ['a'] });
  });

  it('stops at the depth limit with a notice naming what lies beyond', () => {
    const chain: Record<string, string[]> = {};
    for (let i = 0; i < 40; i++) chain[`g${i}`] = [`g${i + 1}`];
    const { result, levels } = walkOver(chain, ['g0'], { maxGroups: 500, maxDepth: 32 });
    expect(Math.max(...result.groups.map((group) => group.depth))).toBe(32);
    expect(result.groups).toHaveLength(33);
    expect(levels).toHaveLength(33);
    expect(result.complete).toBe(false);
    expect(result.notices).toEqual([
      expect.objectContaining({ kind: 'depth-limit', groupIds: ['g33'] }),
    ]);
  });

  it('a chain of exactly the depth limit is complete', () => {
    const chain: Record<string, string[]> = {};
    for (let i = 0; i < 32; i++) chain[`g${i}`] = [`g${i + 1}`];
    const { result } = walkOver(chain, ['g0']);
    expect(result.groups).toHaveLength(33);
    expect(result.complete).toBe(true);
    expect(result.notices).toEqual([]);
  });

  it('stops at the group limit, deterministically, with a notice', () => {
    const wide = { root: Array.from({ length: 10 }, (_, i) => `c${i}`), c0: ['x'] };
    const { result, levels } = walkOver(wide, ['root'], { maxGroups: 6, maxDepth: 32 });
    expect(result.groups.map((group) => group.id)).toEqual(['root', 'c0', 'c1', 'c2', 'c3', 'c4']);
    expect(levels).toHaveLength(1);
    expect(result.complete).toBe(false);
    expect(result.notices[0]).toMatchObject({
      kind: 'group-limit',
      groupIds: ['c5', 'c6', 'c7', 'c8', 'c9'],
    });
    expect(result.notices[0]?.message).toContain('6 groups');
  });

  it('an unreadable branch is a notice; the other branches are still read', () => {
    const { result } = walkOver({ a: ['b', 'c'], b: ['x'], c: ['y'] }, ['a'], undefined, ['b']);
    expect(result.groups.map((group) => group.id)).toEqual(['a', 'b', 'c', 'y']);
    expect(result.complete).toBe(false);
    expect(result.notices).toEqual([
      expect.objectContaining({ kind: 'unreadable', groupIds: ['b'] }),
    ]);
    expect(result.notices[0]?.message).toContain(
      'nested groups of group B (b) could not be read (GRAPH_PERMISSION_MISSING, HTTP 403)',
    );
  });

  it('a group left without an answer counts as unreadable, not as empty', () => {
    const walk = new NestedGroupWalk([g('a'), g('b')], 'parents');
    walk.record('a', []);
    walk.advance();
    const result = walk.result();
    expect(result.complete).toBe(false);
    expect(result.notices[0]?.message).toContain('parent groups of group B (b)');
  });

  it('more starting groups than the limit are cut with a notice', () => {
    const walk = new NestedGroupWalk([g('a'), g('b'), g('c')], 'parents', {
      maxGroups: 2,
      maxDepth: 32,
    });
    expect(walk.frontier().map((group) => group.id)).toEqual(['a', 'b']);
    expect(walk.result().notices[0]).toMatchObject({ kind: 'group-limit', groupIds: ['c'] });
  });

  it('a group the service may not read is kept with a notice saying why, and never read', () => {
    const hidden: GroupLink = {
      id: 'h',
      displayName: 'h',
      notReadable: 'no permission to read it',
    };
    const walk = new NestedGroupWalk([g('a'), hidden], 'parents');
    expect(walk.frontier().map((group) => group.id)).toEqual(['a']);
    walk.record('a', [{ id: 'k', displayName: 'k', notReadable: 'no permission to read it' }]);
    walk.advance();
    expect(walk.done).toBe(true);
    const result = walk.result();
    expect(result.groups.map((group) => [group.id, group.notReadable])).toEqual([
      ['a', undefined],
      ['h', 'no permission to read it'],
      ['k', 'no permission to read it'],
    ]);
    expect(result.notices).toEqual([
      {
        kind: 'not-readable',
        message:
          'group h: no permission to read it; its parent groups were not read, so the result is incomplete',
        groupIds: ['h'],
      },
      expect.objectContaining({ kind: 'not-readable', groupIds: ['k'] }),
    ]);
    expect(result.complete).toBe(false);
  });
});

describe('findCycles', () => {
  it('finds none in a tree or a diamond', () => {
    expect(
      findCycles([
        { from: 'a', to: 'b' },
        { from: 'a', to: 'c' },
        { from: 'b', to: 'd' },
        { from: 'c', to: 'd' },
      ]),
    ).toEqual([]);
  });

  it('reports two separate cycles once each', () => {
    const cycles = findCycles([
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
      { from: 'x', to: 'y' },
      { from: 'y', to: 'x' },
      { from: 'y', to: 'x' },
    ]);
    expect(cycles).toEqual([
      ['a', 'b'],
      ['x', 'y'],
    ]);
  });
});

describe('inheritedMemberships', () => {
  it('lists groups reached through nesting with the path that grants them', () => {
    const walk = new NestedGroupWalk([g('d1'), g('d2')], 'parents');
    walk.record('d1', [g('p1')]);
    walk.record('d2', []);
    walk.advance();
    walk.record('p1', [g('top')]);
    walk.advance();
    walk.record('top', []);
    walk.advance();
    const inherited = inheritedMemberships(walk.result());
    expect(inherited).toEqual([
      { id: 'p1', displayName: 'P1', alsoDirect: false, path: [g('d1'), g('p1')] },
      { id: 'top', displayName: 'TOP', alsoDirect: false, path: [g('d1'), g('p1'), g('top')] },
    ]);
  });

  it('marks a direct group that nesting grants too', () => {
    const walk = new NestedGroupWalk([g('d1'), g('d2')], 'parents');
    walk.record('d1', [g('d2')]);
    walk.record('d2', []);
    walk.advance();
    expect(inheritedMemberships(walk.result())).toEqual([
      { id: 'd2', displayName: 'D2', alsoDirect: true, path: [g('d1'), g('d2')] },
    ]);
  });

  it('a cycle back to a direct group does not make it inherited from itself', () => {
    const walk = new NestedGroupWalk([g('d1')], 'parents');
    walk.record('d1', [g('p')]);
    walk.advance();
    walk.record('p', [g('d1')]);
    walk.advance();
    const result = walk.result();
    expect(inheritedMemberships(result).map((group) => group.id)).toEqual(['p']);
    expect(result.notices.map((notice) => notice.kind)).toEqual(['cycle']);
  });
});
