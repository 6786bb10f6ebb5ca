import { ChangeLog } from './change-log.js';

/** What happened to a group at one point of the directory's history. */
export type GroupChangeKind = 'created' | 'updated' | 'deleted' | 'members';

/** One entry of the group change log. */
export interface GroupChangeEntry {
  groupId: string;
  kind: GroupChangeKind;
  /** The properties an update changed (empty for the other kinds). */
  properties: readonly string[];
  /** `members`: the member added (true) or removed (false), and its kind (`user`, `group`). */
  member?: { id: string; added: boolean; kind: string };
}

/** Every change of a group between two points of the log, folded into one. */
export interface FoldedGroupChange {
  groupId: string;
  /** The group was created within the range: a delta round shows it whole. */
  created: boolean;
  /** The group's last change within the range was its deletion. */
  deleted: boolean;
  /** Properties updated within the range. */
  properties: Set<string>;
  /** Members added (true) or removed (false) within the range, the last change of each. */
  members: Map<string, { added: boolean; kind: string }>;
  /** The position of its last change: delta rounds list changes in this order. */
  lastSeq: number;
}

/**
 * The directory's group history, for `groups/delta` (graph-behaviour.md: Batching and
 * incremental reads): creations, updates, deletions and membership changes, each at the next
 * position of one log, so a delta token is a position and a round the range between two.
 */
export class GroupChangeLog {
  private readonly log = new ChangeLog<GroupChangeEntry>();

  /** The position of the latest change (0 before any). */
  get position(): number {
    return this.log.position;
  }

  /** The last position a read serving changes committed up to `asOf` sees. */
  visiblePosition(asOf: number): number {
    return this.log.visiblePosition(asOf);
  }

  record(
    groupId: string,
    kind: Exclude<GroupChangeKind, 'members'>,
    properties: readonly string[] = [],
    at = Number.NEGATIVE_INFINITY,
  ): void {
    this.log.record({ groupId, kind, properties: [...properties] }, at);
  }

  /** A member added to or removed from a group at `at` (seeding: -Infinity). */
  recordMember(
    groupId: string,
    member: { id: string; added: boolean; kind: string },
    at = Number.NEGATIVE_INFINITY,
  ): void {
    this.log.record({ groupId, kind: 'members', properties: [], member }, at);
  }

  /** The changes after `from` up to and including `to`, one per group, in order of their last change. */
  foldRange(from: number, to: number): FoldedGroupChange[] {
    return this.log.fold<FoldedGroupChange>(
      from,
      to,
      (entry) => entry.groupId,
      (groupId) => ({
        groupId,
        created: false,
        deleted: false,
        properties: new Set(),
        members: new Map(),
        lastSeq: 0,
      }),
      (change, entry) => {
        if (entry.member !== undefined) {
          change.members.set(entry.member.id, {
            added: entry.member.added,
            kind: entry.member.kind,
          });
          return;
        }
        change.deleted = entry.kind === 'deleted';
        if (entry.kind === 'created') change.created = true;
        for (const property of entry.properties) change.properties.add(property);
      },
    );
  }

  /** The direct members of each group at position `to`, from every membership change up to it. */
  membersAt(to: number): Map<string, Map<string, string>> {
    const members = new Map<string, Map<string, string>>();
    for (const entry of this.log.range(0, to)) {
      if (entry.member === undefined) continue;
      let group = members.get(entry.groupId);
      if (group === undefined) {
        group = new Map();
        members.set(entry.groupId, group);
      }
      if (entry.member.added) group.set(entry.member.id, entry.member.kind);
      else group.delete(entry.member.id);
    }
    return members;
  }
}
