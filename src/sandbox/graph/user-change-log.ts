import { ChangeLog } from './change-log.js';

/** One change of a user: created, deleted, or some properties updated. */
export interface UserChangeEntry {
  userId: string;
  kind: 'created' | 'updated' | 'deleted';
  properties: readonly string[];
}

/** Every change of a user between two points of the log, folded into one. */
export interface FoldedUserChange {
  userId: string;
  created: boolean;
  deleted: boolean;
  properties: Set<string>;
  lastSeq: number;
}

/**
 * The directory's user history, for `users/delta` (graph-behaviour.md: Batching and
 * incremental reads), in the same shape as the group history.
 */
export class UserChangeLog {
  private readonly log = new ChangeLog<UserChangeEntry>();

  get position(): number {
    return this.log.position;
  }

  visiblePosition(asOf: number): number {
    return this.log.visiblePosition(asOf);
  }

  record(entry: UserChangeEntry, at = Number.NEGATIVE_INFINITY): void {
    this.log.record({ ...entry, properties: [...entry.properties] }, at);
  }

  /** The changes after `from` up to and including `to`, one per user, in order of their last change. */
  foldRange(from: number, to: number): FoldedUserChange[] {
    return this.log.fold<FoldedUserChange>(
      from,
      to,
      (entry) => entry.userId,
      (userId) => ({ userId, created: false, deleted: false, properties: new Set(), lastSeq: 0 }),
      (change, entry) => {
        change.deleted = entry.kind === 'deleted';
        if (entry.kind === 'created') change.created = true;
        for (const property of entry.properties) change.properties.add(property);
      },
    );
  }
}
