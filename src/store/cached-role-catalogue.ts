import type {
  CatalogueRole,
  ImportClaim,
  ImportLease,
  ImportLeaseAnswer,
  ImportOptions,
  ImportPageCounts,
  ImportProgress,
  LeaseTerm,
  RoleCatalogueStore,
  RoleSnapshot,
  SavedChangeCursor,
} from './role-catalogue';
import type { GroupRef } from '../domain/group';

/** How long a worker reuses a connector's catalogue it has read. */
export const CATALOGUE_CACHE_MS = 30_000;

/**
 * The role catalogue as the steps read it: every membership step looks its named groups up
 * (and their writability flags), and a worker reuses what it read for a short while instead
 * of querying the table for every step. An import in this worker drops the copy at once;
 * an import in another worker is seen within {@link CATALOGUE_CACHE_MS}. Meanwhile a group
 * just imported elsewhere is found on the target by name, and one whose members became
 * unwritable is refused by the target itself.
 */
export class CachedRoleCatalogue implements RoleCatalogueStore {
  private readonly copies = new Map<string, { at: number; roles: Promise<CatalogueRole[]> }>();

  constructor(
    private readonly store: RoleCatalogueStore,
    private readonly now: () => number = Date.now,
    private readonly keepMs = CATALOGUE_CACHE_MS,
  ) {}

  list(
    connector: string,
    options?: { search?: string; includeGone?: boolean },
  ): Promise<CatalogueRole[]> {
    if (options?.search !== undefined) return this.store.list(connector, options);
    // Gone roles kept too (setMemberships reads them), so both kinds of list cost one read.
    const all = this.everyRole(connector);
    return options?.includeGone === true
      ? all
      : all.then((roles) => roles.filter((role) => role.status === 'present'));
  }

  private everyRole(connector: string): Promise<CatalogueRole[]> {
    const copy = this.copies.get(connector);
    if (copy !== undefined && this.now() - copy.at < this.keepMs) return copy.roles;
    const roles = this.store.list(connector, { includeGone: true });
    const entry = { at: this.now(), roles };
    this.copies.set(connector, entry);
    // A failed read is not kept.
    roles.catch(() => {
      if (this.copies.get(connector) === entry) this.copies.delete(connector);
    });
    return roles;
  }

  get(connector: string, groupId: string): Promise<CatalogueRole | undefined> {
    return this.store.get(connector, groupId);
  }

  applyImportPage(
    connector: string,
    groups: readonly GroupRef[],
    options: ImportOptions,
    snapshot?: RoleSnapshot,
  ): Promise<ImportPageCounts> {
    return this.changing(connector, () =>
      this.store.applyImportPage(connector, groups, options, snapshot),
    );
  }

  unseenRoles(connector: string, jobId: string): Promise<CatalogueRole[]> {
    return this.store.unseenRoles(connector, jobId);
  }

  markRemoved(
    connector: string,
    groupIds: readonly string[],
    options: Pick<ImportOptions, 'jobId' | 'at'>,
    lease: LeaseTerm,
  ): Promise<number> {
    return this.changing(connector, () =>
      this.store.markRemoved(connector, groupIds, options, lease),
    );
  }

  claimImport(connector: string, claim: ImportClaim): Promise<ImportLeaseAnswer> {
    return this.store.claimImport(connector, claim);
  }

  importLease(connector: string): Promise<ImportLease | undefined> {
    return this.store.importLease(connector);
  }

  releaseImport(connector: string, jobId: string): Promise<void> {
    return this.store.releaseImport(connector, jobId);
  }

  snapshot(connector: string): Promise<RoleSnapshot> {
    return this.store.snapshot(connector);
  }

  changeCursor(connector: string): Promise<SavedChangeCursor | undefined> {
    return this.store.changeCursor(connector);
  }

  saveChangeCursor(connector: string, cursor: SavedChangeCursor): Promise<void> {
    return this.store.saveChangeCursor(connector, cursor);
  }

  saveImportProgress(jobId: string, progress: ImportProgress): Promise<void> {
    return this.store.saveImportProgress(jobId, progress);
  }

  importProgress(jobId: string): Promise<ImportProgress | undefined> {
    return this.store.importProgress(jobId);
  }

  /** A write to the connector's roles: the copy goes before and after it. */
  private async changing<T>(connector: string, write: () => Promise<T>): Promise<T> {
    this.copies.delete(connector);
    try {
      return await write();
    } finally {
      this.copies.delete(connector);
    }
  }
}
