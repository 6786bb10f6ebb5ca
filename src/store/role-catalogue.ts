import type { CatalogueRole, ImportOptions, ImportPageCounts } from '../domain/catalogue-import';
import type { GroupRef } from '../domain/group';

// The catalogue's model lives beside its import rules in the domain (domain imports only
// domain); re-exported so users of this port need one import.
export type { CatalogueRole, ImportOptions, ImportPageCounts };

/** The role catalogue per connector (DESIGN: src/store), in Table Storage. */
export interface RoleCatalogueStore {
  /** Roles of a connector ordered by name; `search` keeps names containing it (case-insensitive). */
  list(
    connector: string,
    options?: { search?: string; includeGone?: boolean },
  ): Promise<CatalogueRole[]>;
  get(connector: string, groupId: string): Promise<CatalogueRole | undefined>;
  /**
   * Applies one page of an import: new groups added, renames per `overwriteExisting`. The
   * roles the page's groups had are looked up in `snapshot` when given (a full import),
   * else read by id.
   */
  applyImportPage(
    connector: string,
    groups: readonly GroupRef[],
    options: ImportOptions,
    snapshot?: RoleSnapshot,
  ): Promise<ImportPageCounts>;
  /**
   * Every role of the connector, read at once, for a full import to look its pages up in: it
   * meets every role anyway, and one read of the partition costs far less than reads by id
   * (Table Storage scans the partition for a filter naming several row keys).
   */
  snapshot(connector: string): Promise<RoleSnapshot>;
  /**
   * After a complete pass: the present roles `jobId` did not see. Not seeing a group is no
   * proof that it is gone (a page that shifted, a rival writer): each is read by its id.
   */
  unseenRoles(connector: string, jobId: string): Promise<CatalogueRole[]>;
  /**
   * Roles of groups the target proved gone (its own 404 to a read by id) become `gone`
   * (never deleted). Returns how many this job marked, the same again when a retried run of
   * the job repeats it. Written together with a renewal of the job's import lease (`lease`)
   * under the lease row's ETag: IMPORT_ALREADY_RUNNING, marking nothing more, unless the job
   * holds the connector's lease unexpired at `lease.nowMs` until the write.
   */
  markRemoved(
    connector: string,
    groupIds: readonly string[],
    options: Pick<ImportOptions, 'jobId' | 'at'>,
    lease: LeaseTerm,
  ): Promise<number>;
  /** Where the connector's last import left its target's change feed; undefined before the first. */
  changeCursor(connector: string): Promise<SavedChangeCursor | undefined>;
  saveChangeCursor(connector: string, cursor: SavedChangeCursor): Promise<void>;
  /**
   * Takes (or renews) the connector's import lease for a job: held when it was free, the
   * job's own, expired, or held by `claim.replacing` (a job known to have ended); else the
   * holder is answered and nothing changes.
   */
  claimImport(connector: string, claim: ImportClaim): Promise<ImportLeaseAnswer>;
  /** The connector's import lease as stored; undefined when free. */
  importLease(connector: string): Promise<ImportLease | undefined>;
  /** Ends the job's import lease (one another job holds is left alone). */
  releaseImport(connector: string, jobId: string): Promise<void>;
  /** Records how far a running import got (after each chunk of groups it wrote). */
  saveImportProgress(jobId: string, progress: ImportProgress): Promise<void>;
  importProgress(jobId: string): Promise<ImportProgress | undefined>;
}

/** How far a running import got: what a progress display shows while it runs. */
export interface ImportProgress {
  mode: 'full' | 'incremental';
  /** Groups read from the target so far (incremental: changes read). */
  groupsRead: number;
  /** Of those, how many the catalogue has applied. */
  groupsApplied: number;
  /** ISO time of the last update. */
  at: string;
}

/**
 * The roles of one connector as a full import found them, following the pages applied with
 * it. Opaque outside the store; it holds a few hundred bytes per role.
 */
export interface RoleSnapshot {
  readonly connector: string;
  readonly size: number;
}

/** Which import job may write a connector's catalogue now (one at a time). */
export interface ImportLease {
  jobId: string;
  /** ISO time the job took it. */
  since: string;
  /** ISO time it ends unless renewed. */
  expiresAt: string;
}

/** The time a lease is judged at, and how long a renewal lasts from then. */
export interface LeaseTerm {
  nowMs: number;
  ttlMs: number;
}

export interface ImportClaim extends LeaseTerm {
  jobId: string;
  /** A job that held the lease and is known to have ended: its lease is taken over at once. */
  replacing?: string;
}

export type ImportLeaseAnswer = { held: true } | { held: false; holder: ImportLease };

/** A change feed's cursor as the catalogue keeps it between imports. */
export interface SavedChangeCursor {
  cursor: string;
  /** The import job that reached it, and when. */
  jobId: string;
  savedAt: string;
}
