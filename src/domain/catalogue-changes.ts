import type { GroupRef } from './group';

/**
 * One change of a target's group catalogue since a cursor: a group that is there (new,
 * renamed, or otherwise changed: the same rules as a full import apply to it), or one the
 * target removed (its role is marked gone, never deleted).
 */
export type CatalogueChange =
  { kind: 'present'; group: GroupRef } | { kind: 'removed'; groupId: string };

/** One page of changes; the last page of a read carries the cursor for the next read. */
export interface CatalogueChangePage {
  changes: CatalogueChange[];
  /** Present on the last page only: where the next incremental import starts. */
  cursor?: string;
}

/**
 * What a connector offers where its target tracks changes of the group catalogue (Graph:
 * `groups/delta`): a connector without it is imported in full every time. Cursors are
 * opaque to the service and stored per connector between imports.
 */
export interface GroupChangeFeed {
  /**
   * A cursor at the catalogue's current state, taken before a full import reads it: what
   * changes during that read is read again by the next incremental import (applying it
   * twice does no harm).
   */
  latestCursor(): Promise<string>;
  /**
   * The changes since `cursor`, page by page. CATALOGUE_CURSOR_EXPIRED when the target no
   * longer knows the cursor: the caller imports in full instead.
   */
  changesSince(cursor: string): AsyncIterable<CatalogueChangePage>;
}
