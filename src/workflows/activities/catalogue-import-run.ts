import type { Connector } from '../../connectors/connector';
import type { CatalogueChange, GroupChangeFeed } from '../../domain/catalogue-changes';
import { isProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import type {
  CatalogueRole,
  ImportOptions,
  ImportPageCounts,
  RoleSnapshot,
} from '../../store/role-catalogue';
import type { WorkflowServices } from '../workflow-services';
import type { ImportCatalogueInput } from './activity-inputs';
import { proofNotices, proveGone } from './gone-proof';
import { ImportLeaseKeeper } from './import-lease-keeper';

/** What an import did: its mode, the groups it read and what became of them. */
export interface ImportSummary extends ImportPageCounts {
  /** `full`: the whole catalogue was read; `incremental`: only the changes since the last import. */
  mode: 'full' | 'incremental';
  /** Groups read from the target (incremental: groups reported changed or removed). */
  groups: number;
  /** Chunks of groups written to the catalogue. */
  pages: number;
  /**
   * Roles marked gone: the target answered its own 404 to a read by id of a group a full
   * import's pages did not list, or that its change feed reported removed.
   */
  markedGone: number;
  /**
   * Groups the pages did not list, or the change feed reported removed, that a read by id
   * found on the target (kept, not gone).
   */
  foundById: number;
  /**
   * Roles not listed, or reported removed, whose read by id failed: left as they were, each
   * named in a notice.
   */
  goneUnconfirmed: number;
  /** Why an incremental import read everything, and other things the operator should know. */
  notices: string[];
}

/** How many imported groups are written to the catalogue at a time. */
const IMPORT_CHUNK = 500;

/**
 * "Import SCIM groups" / "Import Directory Groups" (spec 4). Incremental, where asked for
 * and the connector has a change feed: only the changes since the cursor the last import
 * saved, by the same rules as a full import (new groups added, renames per the overwrite
 * option, groups reported removed read by id and marked gone only on the target's own 404,
 * never deleted). Full otherwise, and whenever the cursor is missing or expired, with a
 * notice saying why: every page of the catalogue, then each role not seen read by its id,
 * and marked gone only when the target answers its own 404 (a proxy's bare 404 proves
 * nothing).
 * A full import of a connector with a feed takes a cursor first, so the next incremental
 * import starts from before this read.
 *
 * One import per connector at a time: the job holds the connector's import lease while it
 * runs (IMPORT_ALREADY_RUNNING when another job holds it), and marks roles gone only in one
 * transaction with a renewal of it: nothing once it expired or another job took it. Running
 * it again is harmless (Durable runs activities at least once): every write is an upsert,
 * counts of a repeated run are those of the first, and the cursor is saved last.
 */
export async function runCatalogueImport(
  s: WorkflowServices,
  connector: Connector,
  input: ImportCatalogueInput,
): Promise<ImportSummary> {
  const lease = new ImportLeaseKeeper(s, input.connector, input.jobId);
  await lease.take();
  try {
    return await importUnderLease(s, connector, input, lease);
  } finally {
    await lease.release();
  }
}

async function importUnderLease(
  s: WorkflowServices,
  connector: Connector,
  input: ImportCatalogueInput,
  lease: ImportLeaseKeeper,
): Promise<ImportSummary> {
  const feed = connector.groupChanges;
  const notices: string[] = [];
  if (input.incremental === true) {
    const saved = feed === undefined ? undefined : await s.catalogue.changeCursor(input.connector);
    if (feed === undefined) {
      notices.push(
        `connector "${input.connector}" cannot tell what changed since the last import: the whole catalogue was read`,
      );
    } else if (saved === undefined) {
      notices.push(
        'no earlier import left a delta link: the whole catalogue was read (the next import can be incremental)',
      );
    } else {
      try {
        return await incrementalImport(s, connector, feed, saved.cursor, input, lease);
      } catch (error) {
        if (!isProvisioningError(error) || error.code !== 'CATALOGUE_CURSOR_EXPIRED') throw error;
        notices.push(`${error.message}: the whole catalogue was read instead`);
      }
    }
  }
  return fullImport(s, connector, input, notices, lease);
}

async function fullImport(
  s: WorkflowServices,
  connector: Connector,
  input: ImportCatalogueInput,
  notices: string[],
  lease: ImportLeaseKeeper,
): Promise<ImportSummary> {
  const cursor =
    connector.groupChanges === undefined
      ? undefined
      : await connector.groupChanges.latestCursor().catch((error: unknown) => {
          // The import itself does not depend on it: the next one is full again.
          notices.push(
            `no delta link was taken, so the next import reads everything again: ${describe(error)}`,
          );
          return undefined;
        });
  const summary = emptySummary('full', notices);
  const writer = new ChunkWriter(
    s,
    input,
    summary,
    lease,
    await s.catalogue.snapshot(input.connector),
  );
  for await (const group of connector.importGroups()) {
    summary.groups += 1;
    await writer.add(group);
  }
  await writer.flush();
  const unseen = await s.catalogue.unseenRoles(input.connector, input.jobId);
  const proof = await proveGone(connector, unseen, () => lease.keep());
  for (const group of proof.found) await writer.add(group);
  await writer.flush();
  summary.groups += proof.found.length;
  summary.foundById = proof.found.length;
  summary.goneUnconfirmed = proof.unread.length;
  summary.notices.push(...proofNotices(proof, 'not listed'));
  summary.markedGone = await s.catalogue.markRemoved(
    input.connector,
    proof.gone.map((role) => role.groupId),
    input,
    lease.term(),
  );
  if (cursor !== undefined) await saveCursor(s, input, cursor);
  logDone(s, input, summary);
  return summary;
}

async function incrementalImport(
  s: WorkflowServices,
  connector: Connector,
  feed: GroupChangeFeed,
  since: string,
  input: ImportCatalogueInput,
  lease: ImportLeaseKeeper,
): Promise<ImportSummary> {
  const summary = emptySummary('incremental', []);
  const writer = new ChunkWriter(s, input, summary, lease);
  let next: string | undefined;
  for await (const page of feed.changesSince(since)) {
    summary.groups += page.changes.length;
    const removed = page.changes.filter(isRemoval).map((change) => change.groupId);
    for (const change of page.changes)
      if (change.kind === 'present') await writer.add(change.group);
    // A group shown and then removed within one read ends removed: write presences first.
    await writer.flush();
    // Graph reports `@removed` for a group that left the query's scope, or on a replica's
    // word, too (graph-behaviour.md): the same proof as a full import, a read by id.
    const proof = await proveGone(connector, await presentRoles(s, input, removed), () =>
      lease.keep(),
    );
    for (const group of proof.found) await writer.add(group);
    await writer.flush();
    summary.foundById += proof.found.length;
    summary.goneUnconfirmed += proof.unread.length;
    summary.notices.push(...proofNotices(proof, 'reported removed'));
    summary.markedGone += await s.catalogue.markRemoved(
      input.connector,
      proof.gone.map((role) => role.groupId),
      input,
      lease.term(),
    );
    next = page.cursor ?? next;
  }
  if (next !== undefined) await saveCursor(s, input, next);
  logDone(s, input, summary);
  return summary;
}

/**
 * Groups written in chunks, each applied by the catalogue's import rules; a full import
 * looks the roles up in a snapshot read once, an incremental one reads them by id.
 */
class ChunkWriter {
  private chunk: GroupRef[] = [];
  /** Groups applied so far (a repeated group counts each time: progress, not a tally). */
  private applied = 0;
  private readonly options: ImportOptions;

  constructor(
    private readonly s: WorkflowServices,
    private readonly input: ImportCatalogueInput,
    private readonly summary: ImportSummary,
    private readonly lease: ImportLeaseKeeper,
    private readonly snapshot?: RoleSnapshot,
  ) {
    this.options = {
      overwriteExisting: input.overwriteExisting,
      jobId: input.jobId,
      at: input.at,
    };
  }

  async add(group: GroupRef): Promise<void> {
    this.chunk.push(group);
    if (this.chunk.length >= IMPORT_CHUNK) await this.flush();
    else await this.lease.keep();
  }

  async flush(): Promise<void> {
    if (this.chunk.length === 0) return;
    await this.lease.keep();
    const counts = await this.s.catalogue.applyImportPage(
      this.input.connector,
      this.chunk,
      this.options,
      this.snapshot,
    );
    this.applied += this.chunk.length;
    this.chunk = [];
    this.summary.added += counts.added;
    this.summary.renamed += counts.renamed;
    this.summary.renameSkipped += counts.renameSkipped;
    this.summary.unchanged += counts.unchanged;
    this.summary.returned += counts.returned;
    this.summary.pages += 1;
    await this.s.catalogue.saveImportProgress(this.input.jobId, {
      mode: this.summary.mode,
      groupsRead: this.summary.groups,
      groupsApplied: this.applied,
      at: new Date().toISOString(),
    });
  }
}

/** The present roles of these groups: only they can become gone. */
async function presentRoles(
  s: WorkflowServices,
  input: ImportCatalogueInput,
  groupIds: readonly string[],
): Promise<CatalogueRole[]> {
  const roles = await Promise.all(
    [...new Set(groupIds)].map((id) => s.catalogue.get(input.connector, id)),
  );
  return roles.filter((role): role is CatalogueRole => role?.status === 'present');
}

function isRemoval(change: CatalogueChange): change is { kind: 'removed'; groupId: string } {
  return change.kind === 'removed';
}

function emptySummary(mode: ImportSummary['mode'], notices: string[]): ImportSummary {
  return {
    mode,
    groups: 0,
    pages: 0,
    added: 0,
    renamed: 0,
    renameSkipped: 0,
    unchanged: 0,
    returned: 0,
    markedGone: 0,
    foundById: 0,
    goneUnconfirmed: 0,
    notices,
  };
}

function saveCursor(s: WorkflowServices, input: ImportCatalogueInput, cursor: string) {
  return s.catalogue.saveChangeCursor(input.connector, {
    cursor,
    jobId: input.jobId,
    savedAt: input.at,
  });
}

function logDone(s: WorkflowServices, input: ImportCatalogueInput, summary: ImportSummary): void {
  s.logger.info(
    `catalogue import of connector ${input.connector} (${summary.mode}): ${summary.groups} groups`,
    { connector: input.connector, jobId: input.jobId },
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
