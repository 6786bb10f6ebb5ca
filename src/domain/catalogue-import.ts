import type { GroupRef } from './group';

/** A target group imported as a role (spec 4: "Import SCIM groups" / "Import Directory Groups"). */
export interface CatalogueRole {
  connector: string;
  groupId: string;
  /** The role's name in the service. */
  displayName: string;
  /** The group's name on the target at the last import; differs from displayName after a rename without overwrite. */
  targetName: string;
  writable: boolean;
  /** Why members cannot be written, when not writable. */
  notWritableReason?: string;
  /** `gone`: not seen in the last complete import; kept, never deleted. */
  status: 'present' | 'gone';
  firstImportedAt: string;
  lastImportedAt: string;
  /** The import job that last saw the group. */
  lastSeenJobId: string;
  goneSince?: string;
}

export interface ImportPageCounts {
  added: number;
  /** Renamed on the target and renamed here (overwrite on). */
  renamed: number;
  /** Renamed on the target, name kept here (overwrite off): `targetName` shows the new name. */
  renameSkipped: number;
  unchanged: number;
  /** Gone before, present again. */
  returned: number;
}

export interface ImportOptions {
  overwriteExisting: boolean;
  jobId: string;
  /** ISO time of the import. */
  at: string;
}

/** What an import did with one group (the counts of ImportPageCounts). */
export type ImportOutcome = 'added' | 'renamed' | 'renameSkipped' | 'unchanged' | 'returned';

export interface ReconciledGroup {
  role: CatalogueRole;
  outcome: ImportOutcome;
}

/**
 * The role a group of the target becomes in the catalogue, given the role it was before
 * (spec 4 and "Connector A" rule 3: a rename on the target reaches the service by an import
 * with "Overwrite existing roles").
 *
 * - unknown group: `added`;
 * - renamed on the target: with overwrite, `renamed` and the role takes the new name;
 *   without, `renameSkipped`: the role keeps its name and `targetName` shows the new one;
 * - gone before and present again: `returned` (the rename rule applies as well);
 * - writability is always taken from the target (undefined means writable);
 * - the role is stamped with the job and time that saw it.
 *
 * @example
 * reconcileImportedGroup(undefined, { id: 'g1', displayName: 'Sales' },
 *   { connector: 'hr', overwriteExisting: false, jobId: 'job-1', at: '2025-01-01T00:00:00.000Z' });
 * // { outcome: 'added', role: { groupId: 'g1', displayName: 'Sales', status: 'present', ... } }
 */
export function reconcileImportedGroup(
  existing: CatalogueRole | undefined,
  group: GroupRef,
  options: ImportOptions & { connector: string },
): ReconciledGroup {
  const writable = group.writable ?? true;
  const seen = {
    writable,
    ...(!writable && group.notWritableReason !== undefined
      ? { notWritableReason: group.notWritableReason }
      : {}),
    status: 'present' as const,
    lastImportedAt: options.at,
    lastSeenJobId: options.jobId,
  };
  if (existing === undefined) {
    return {
      outcome: 'added',
      role: {
        connector: options.connector,
        groupId: group.id,
        displayName: group.displayName,
        targetName: group.displayName,
        ...seen,
        firstImportedAt: options.at,
      },
    };
  }

  const renamedOnTarget = options.overwriteExisting
    ? group.displayName !== existing.displayName
    : group.displayName !== existing.targetName;
  const role: CatalogueRole = {
    connector: existing.connector,
    groupId: existing.groupId,
    displayName: options.overwriteExisting ? group.displayName : existing.displayName,
    targetName: group.displayName,
    ...seen,
    firstImportedAt: existing.firstImportedAt,
  };
  const outcome: ImportOutcome =
    existing.status === 'gone'
      ? 'returned'
      : !renamedOnTarget
        ? 'unchanged'
        : options.overwriteExisting
          ? 'renamed'
          : 'renameSkipped';
  return { role, outcome };
}

/**
 * The outcome to report when a job meets a group it has already reconciled: an import
 * page applied twice (Durable runs activities at least once) must count as it did the
 * first time, not as `unchanged`, so the job's totals do not depend on retries.
 *
 * @example
 * // the page is applied again by job-1: the group now looks unchanged, but job-1 added it
 * outcomeOfRepeatedSighting('added', 'job-1', { jobId: 'job-1', outcome: 'unchanged' }); // 'added'
 */
export function outcomeOfRepeatedSighting(
  previousOutcome: ImportOutcome | undefined,
  previousJobId: string | undefined,
  current: { jobId: string; outcome: ImportOutcome },
): ImportOutcome {
  return previousJobId === current.jobId &&
    current.outcome === 'unchanged' &&
    previousOutcome !== undefined
    ? previousOutcome
    : current.outcome;
}

/**
 * Whether a role answers to a name a request gives: its name in the service or on the
 * target, compared without regard to case (names are how governance workflows know roles).
 *
 * @example
 * roleAnswersTo({ displayName: 'Sales', targetName: 'Sales EMEA' } as CatalogueRole, 'sales emea'); // true
 */
export function roleAnswersTo(role: CatalogueRole, name: string): boolean {
  const wanted = name.toLowerCase();
  return role.displayName.toLowerCase() === wanted || role.targetName.toLowerCase() === wanted;
}
