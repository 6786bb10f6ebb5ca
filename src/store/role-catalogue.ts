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
  /** Applies one page of an import: new groups added, renames per `overwriteExisting`. */
  applyImportPage(
    connector: string,
    groups: readonly GroupRef[],
    options: ImportOptions,
  ): Promise<ImportPageCounts>;
  /** After a complete import: present roles not seen by `jobId` become `gone`. Returns how many. */
  markGone(connector: string, jobId: string, at: string): Promise<number>;
}
