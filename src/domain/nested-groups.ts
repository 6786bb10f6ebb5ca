import { describeGroup } from './group';

/** Spec: Limits: nested groups are read up to 500 groups and 32 levels. */
export const NESTED_GROUP_LIMITS: NestedGroupLimits = { maxGroups: 500, maxDepth: 32 };

export interface NestedGroupLimits {
  /** Groups in one result, the starting groups included. */
  maxGroups: number;
  /** Levels of nesting below the starting groups. */
  maxDepth: number;
}

/** A group as a step of a path: enough to name it. */
export interface GroupLink {
  id: string;
  displayName: string;
  /**
   * Set when the service may not read the group (its id stands in for the name): why. Its
   * own relations are not read; the walk says so in a notice.
   */
  notReadable?: string;
}

/** A group reached by the walk, with the first (shortest) path that reaches it. */
export interface NestedGroupEntry extends GroupLink {
  /** 0 for a starting group, 1 for a group one nesting step away, ... */
  depth: number;
  /** From a starting group to this group, both included. */
  path: GroupLink[];
  /**
   * Its direct members of every kind (users, groups, devices), where the walk read them: a
   * walk down the members counts what it read anyway; a walk up the parents reads none.
   */
  memberCount?: number;
}

export type NestedGroupNoticeKind =
  'cycle' | 'group-limit' | 'depth-limit' | 'unreadable' | 'not-readable';

/** Spec: Nested groups: cycles and incomplete reads are notices, never failures. */
export interface NestedGroupNotice {
  kind: NestedGroupNoticeKind;
  message: string;
  groupIds: string[];
}

export interface NestedGroupWalkResult {
  /** Every group reached, starting groups first, then level by level. */
  groups: NestedGroupEntry[];
  /** Nesting relations seen between groups of the result, in the walk's direction. */
  edges: { from: string; to: string }[];
  notices: NestedGroupNotice[];
  /** False when a limit was reached or a branch could not be read. */
  complete: boolean;
  /** How many levels were read: the round trips a level-by-level reader needs at least. */
  levelsRead: number;
}

/**
 * `members`: the walk goes down, to the groups nested inside (group structure).
 * `parents`: it goes up, to the groups that contain (inherited memberships).
 */
export type NestedGroupRelation = 'members' | 'parents';

type LevelRead = { neighbours: GroupLink[] } | { unreadable: string };

/**
 * The rules of a nested-group read (spec: Nested groups, connector B), without I/O: the
 * reader asks for the current level's groups (`frontier`), reads their nested groups in
 * parallel, records each answer, and calls `advance`. The walk keeps the limits, the
 * first path to each group and the notices; results do not depend on the order in which
 * parallel answers arrived.
 *
 * @example
 * const walk = new NestedGroupWalk([{ id: 'g1', displayName: 'Sales' }], 'members');
 * walk.record('g1', [{ id: 'g2', displayName: 'Sales EU' }]);
 * walk.advance(); // walk.frontier() is now [Sales EU]
 */
export class NestedGroupWalk {
  private readonly entries = new Map<string, NestedGroupEntry>();
  private readonly edges: { from: string; to: string }[] = [];
  private readonly notices: NestedGroupNotice[] = [];
  private readonly reads = new Map<string, LevelRead>();
  private level: NestedGroupEntry[] = [];
  private levelsRead = 0;
  private complete = true;

  constructor(
    starts: readonly GroupLink[],
    private readonly relation: NestedGroupRelation,
    private readonly limits: NestedGroupLimits = NESTED_GROUP_LIMITS,
  ) {
    const skipped: string[] = [];
    for (const start of starts) {
      if (this.entries.has(start.id)) continue;
      if (this.entries.size >= limits.maxGroups) {
        skipped.push(start.id);
        continue;
      }
      this.enter({ ...start, depth: 0, path: [linkOf(start)] }, this.level);
    }
    if (skipped.length > 0) this.groupLimitReached(skipped);
  }

  /** The groups whose nested groups the next level reads; empty when the walk is done. */
  frontier(): GroupLink[] {
    return this.level.map(({ id, displayName }) => ({ id, displayName }));
  }

  get done(): boolean {
    return this.level.length === 0;
  }

  /**
   * The nested groups read for one group of the frontier (all pages), and on a walk down the
   * members, how many direct members of every kind those pages held.
   */
  record(groupId: string, neighbours: readonly GroupLink[], memberCount?: number): void {
    this.reads.set(groupId, { neighbours: [...neighbours] });
    const entry = this.entries.get(groupId);
    if (entry !== undefined && memberCount !== undefined) entry.memberCount = memberCount;
  }

  /** A branch that could not be read (no permission, group gone): a notice, not a failure. */
  recordUnreadable(groupId: string, reason: string): void {
    this.reads.set(groupId, { unreadable: reason });
  }

  /** Closes the current level, in frontier order, and makes the next one the frontier. */
  advance(): void {
    if (this.done) return;
    this.levelsRead++;
    const next: NestedGroupEntry[] = [];
    const tooDeep = new Set<string>();
    const overLimit = new Set<string>();
    for (const entry of this.level) {
      const read = this.reads.get(entry.id) ?? { unreadable: 'not read' };
      if ('unreadable' in read) {
        this.complete = false;
        this.notices.push({
          kind: 'unreadable',
          message: `${this.relationWord()} of group ${describeGroup(entry)} could not be read (${read.unreadable}); the result is incomplete`,
          groupIds: [entry.id],
        });
        continue;
      }
      const seen = new Set<string>();
      for (const neighbour of read.neighbours) {
        if (seen.has(neighbour.id)) continue;
        seen.add(neighbour.id);
        if (this.entries.has(neighbour.id)) {
          this.edges.push({ from: entry.id, to: neighbour.id });
        } else if (entry.depth >= this.limits.maxDepth) {
          tooDeep.add(neighbour.id);
        } else if (this.entries.size >= this.limits.maxGroups) {
          overLimit.add(neighbour.id);
        } else {
          this.edges.push({ from: entry.id, to: neighbour.id });
          this.enter(
            {
              ...linkOf(neighbour),
              depth: entry.depth + 1,
              path: [...entry.path, linkOf(neighbour)],
            },
            next,
          );
        }
      }
    }
    this.reads.clear();
    if (tooDeep.size > 0) {
      this.complete = false;
      this.notices.push({
        kind: 'depth-limit',
        message:
          `nesting goes deeper than ${this.limits.maxDepth} levels: ${tooDeep.size} group(s) ` +
          `beyond that depth were not read; the result is incomplete`,
        groupIds: [...tooDeep],
      });
    }
    if (overLimit.size > 0) {
      this.groupLimitReached([...overLimit]);
      this.level = [];
      return;
    }
    this.level = next;
  }

  /** The groups, relations and notices so far; cycles are found over the relations seen. */
  result(): NestedGroupWalkResult {
    const cycles = findCycles(this.edges).map((cycle) => this.cycleNotice(cycle));
    return {
      groups: [...this.entries.values()],
      edges: [...this.edges],
      notices: [...this.notices, ...cycles],
      complete: this.complete,
      levelsRead: this.levelsRead,
    };
  }

  /**
   * Takes a group into the result; one the service may not read is shown with a notice
   * saying why, and its relations are not read (the result is then incomplete).
   */
  private enter(entry: NestedGroupEntry, level: NestedGroupEntry[]): void {
    this.entries.set(entry.id, entry);
    if (entry.notReadable === undefined) {
      level.push(entry);
      return;
    }
    this.complete = false;
    this.notices.push({
      kind: 'not-readable',
      message: `group ${entry.id}: ${entry.notReadable}; its ${this.relationWord()} were not read, so the result is incomplete`,
      groupIds: [entry.id],
    });
  }

  private groupLimitReached(skipped: string[]): void {
    this.complete = false;
    this.notices.push({
      kind: 'group-limit',
      message:
        `the limit of ${this.limits.maxGroups} groups was reached: ${skipped.length} further ` +
        `group(s) and everything beyond them were not read; the result is incomplete`,
      groupIds: skipped,
    });
  }

  private cycleNotice(cycle: string[]): NestedGroupNotice {
    const names = cycle.map((id) => {
      const entry = this.entries.get(id);
      return entry === undefined ? id : describeGroup(entry);
    });
    return {
      kind: 'cycle',
      message: `groups nest in a cycle: ${[...names, names[0]].join(' -> ')}; each group is listed once`,
      groupIds: cycle,
    };
  }

  private relationWord(): string {
    return this.relation === 'members' ? 'nested groups' : 'parent groups';
  }
}

/** The link as it appears in paths and results: `notReadable` kept when set. */
function linkOf(group: GroupLink): GroupLink {
  return {
    id: group.id,
    displayName: group.displayName,
    ...(group.notReadable === undefined ? {} : { notReadable: group.notReadable }),
  };
}

/**
 * Each cycle among the relations, once: a depth-first search reports every relation that
 * leads back to a group on the current path (a self-nested group is a cycle of one).
 *
 * @example
 * findCycles([{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }]); // [['a', 'b']]
 */
export function findCycles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const list = next.get(from) ?? [];
    list.push(to);
    next.set(from, list);
  }
  const state = new Map<string, 'open' | 'closed'>();
  const cycles: string[][] = [];
  const reported = new Set<string>();
  for (const start of next.keys()) {
    if (state.has(start)) continue;
    const stack: { id: string; index: number }[] = [{ id: start, index: 0 }];
    const onPath: string[] = [start];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = next.get(top.id) ?? [];
      if (top.index >= targets.length) {
        state.set(top.id, 'closed');
        stack.pop();
        onPath.pop();
        continue;
      }
      const target = targets[top.index++]!;
      const seen = state.get(target);
      if (seen === 'open') {
        const cycle = onPath.slice(onPath.indexOf(target));
        const key = [...cycle].sort().join('\n');
        if (!reported.has(key)) {
          reported.add(key);
          cycles.push(cycle);
        }
      } else if (seen === undefined) {
        state.set(target, 'open');
        stack.push({ id: target, index: 0 });
        onPath.push(target);
      }
    }
  }
  return cycles;
}

/** A group the account holds through nesting, with the chain of groups that grants it. */
export interface InheritedMembership extends GroupLink {
  /** From the direct group the account is in, to this group. */
  path: GroupLink[];
  /** The account is also a direct member: removing that would not remove access. */
  alsoDirect: boolean;
}

/**
 * Spec: "Effective inherited memberships": from an upward walk that started at the
 * account's direct groups, every group reached through nesting with the path that grants
 * it; a direct group that nesting grants as well is listed, marked `alsoDirect`.
 *
 * @example
 * inheritedMemberships(walk.result()); // [{ id: 'p', displayName: 'All staff', path: [...], alsoDirect: false }]
 */
export function inheritedMemberships(result: NestedGroupWalkResult): InheritedMembership[] {
  const byId = new Map(result.groups.map((group) => [group.id, group]));
  const inherited: InheritedMembership[] = result.groups
    .filter((group) => group.depth > 0)
    .map(({ id, displayName, path }) => ({ id, displayName, path, alsoDirect: false }));
  for (const direct of result.groups.filter((group) => group.depth === 0)) {
    const via = result.edges
      .filter((edge) => edge.to === direct.id)
      .map((edge) => byId.get(edge.from))
      .filter((from): from is NestedGroupEntry => from !== undefined)
      .filter((from) => !from.path.some((step) => step.id === direct.id))
      .sort((a, b) => a.depth - b.depth)[0];
    if (via !== undefined) {
      const path = [...via.path, { id: direct.id, displayName: direct.displayName }];
      inherited.push({ id: direct.id, displayName: direct.displayName, path, alsoDirect: true });
    }
  }
  return inherited;
}

export interface NestedReadStats {
  /** Levels read, the first one included. */
  levels: number;
  /** HTTP requests sent. */
  requests: number;
  /** Sequential round trips: what the wall time grows with. */
  roundTrips: number;
}

/** Spec: Nested groups: "the service shows the group structure". */
export interface GroupStructure {
  root: GroupLink;
  /** The root (depth 0) and every group nested in it, with the first path that reaches it. */
  groups: NestedGroupEntry[];
  /** Containing group -> nested group. */
  edges: { from: string; to: string }[];
  notices: NestedGroupNotice[];
  complete: boolean;
  stats: NestedReadStats;
}

/** Spec: Nested groups: the section "Effective inherited memberships" of an account. */
export interface InheritedMembershipsResult {
  accountId: string;
  /** The direct groups (what the membership procedure writes). */
  direct: GroupLink[];
  /** Groups held through nesting, each with the path that grants it. Never written. */
  inherited: InheritedMembership[];
  notices: NestedGroupNotice[];
  complete: boolean;
  stats: NestedReadStats;
}
