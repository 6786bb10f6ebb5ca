/** What happened to a group at one point of the directory's history. */
export type GroupChangeKind = 'created' | 'updated' | 'deleted';

/** One entry of the group change log: `seq` orders every change of the directory's groups. */
export interface GroupChangeEntry {
  seq: number;
  groupId: string;
  kind: GroupChangeKind;
  /** The properties an update changed (empty for created and deleted). */
  properties: readonly string[];
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
  /** The sequence number of its last change: delta rounds list changes in this order. */
  lastSeq: number;
}

/**
 * The directory's group history, for `groups/delta` (graph-behaviour.md: Batching and
 * incremental reads): every creation, update and deletion gets the next sequence number,
 * so a delta token is a position in this log and a round is the range between two.
 */
export class GroupChangeLog {
  private readonly entries: GroupChangeEntry[] = [];

  /** The sequence number of the latest change (0 before any). */
  get position(): number {
    return this.entries.length;
  }

  record(groupId: string, kind: GroupChangeKind, properties: readonly string[] = []): void {
    this.entries.push({ seq: this.entries.length + 1, groupId, kind, properties: [...properties] });
  }

  /** The changes after `from` up to and including `to`, one per group, in order of their last change. */
  foldRange(from: number, to: number): FoldedGroupChange[] {
    const folded = new Map<string, FoldedGroupChange>();
    for (const entry of this.entries.slice(Math.max(0, from), Math.max(from, to))) {
      let change = folded.get(entry.groupId);
      if (change === undefined) {
        change = {
          groupId: entry.groupId,
          created: false,
          deleted: false,
          properties: new Set(),
          lastSeq: entry.seq,
        };
        folded.set(entry.groupId, change);
      }
      change.lastSeq = entry.seq;
      change.deleted = entry.kind === 'deleted';
      if (entry.kind === 'created') change.created = true;
      for (const property of entry.properties) change.properties.add(property);
    }
    return [...folded.values()].sort((a, b) => a.lastSeq - b.lastSeq);
  }
}
