import { createHash } from 'node:crypto';
import { odata, type TableClient } from '@azure/data-tables';
import { ProvisioningError } from '../domain/errors';
import type { JournalEntry } from '../domain/journal-entry';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { deleteInBatches } from './table-batches';
import { encodeTableKey } from './table-key';

/**
 * Marker rows sort after the account rows (`~account~`) and, like them, after every journal
 * entry: neither a journal query nor the list of linked accounts reads them.
 */
export const STEP_MARKER_PREFIX = '~step~';

/** A step commit's marker: its row's keys and the time its entries are recorded under. */
export interface StepMarker {
  partitionKey: string;
  rowKey: string;
  at: string;
  requestId: string;
  accountId: string;
  step: number;
}

/** What a marker row holds: the commit it stands for, and whether all of it is written. */
interface StepMarkerRow {
  requestId: string;
  accountId: string;
  step: number;
  /** The entries' time in their RowKeys: a second run of the commit writes them there again. */
  at: string;
  done: boolean;
}

/** Whether a commit ran before, and if it did not finish, the time its entries are under. */
export type StepClaim = { done: true } | { done: false; at: string };

const MAX_ROUNDS = 3;

/**
 * The marker of a step commit with journal entries (undefined without any): keyed by the
 * entries' own keys, never by a clock, so that a second run of the same commit (Durable
 * runs activities at least once; a restarted local host may run an episode again at a later
 * time) finds the first run's marker and with it the time its entries' RowKeys carry.
 *
 * @example
 * stepMarkerOf(journalEntriesOf(request, 0, [{ change: 'account created' }], at));
 */
export function stepMarkerOf(entries: readonly JournalEntry[]): StepMarker | undefined {
  const first = entries[0];
  if (first === undefined) return undefined;
  if (entries.some((entry) => entry.at !== first.at || entry.connector !== first.connector)) {
    // A commit is one step's changes, stamped with one time (journalEntriesOf).
    throw new ProvisioningError(
      'INTERNAL_ERROR',
      `the journal entries of request "${first.requestId}" step ${first.step} do not share one connector and time`,
      { object: first.requestId },
    );
  }
  const keys = entries.map((entry) => entry.key).sort();
  const hash = createHash('sha256').update(JSON.stringify(keys)).digest('hex').slice(0, 40);
  return {
    partitionKey: encodeTableKey(first.connector),
    rowKey: `${STEP_MARKER_PREFIX}${hash}`,
    at: first.at,
    requestId: first.requestId,
    accountId: first.accountId,
    step: first.step,
  };
}

/**
 * The markers of a commit that carries the entries of several steps (revision 3 commits a
 * step with the one after it): one per step, each exactly the marker a commit of that step
 * alone has, so that a second run finds each step's first run whichever way the steps were
 * grouped then (a re-run episode may renew the lease between them and commit them apart).
 *
 * @example
 * stepMarkersOf([...journalEntriesOf(request, 0, created, t0), ...journalEntriesOf(request, 1, added, t1)]); // two markers
 *
 * Entries of earlier requests' changes found later (`foundBy`) have no marker: each carries
 * its own step's time, whatever run writes it, so a second run upserts the same row.
 */
export function stepMarkersOf(entries: readonly JournalEntry[]): StepMarker[] {
  const bySteps = new Map<number, JournalEntry[]>();
  for (const entry of entries) {
    if (isFoundLater(entry)) continue;
    const step = bySteps.get(entry.step);
    if (step === undefined) bySteps.set(entry.step, [entry]);
    else step.push(entry);
  }
  return [...bySteps.values()].map((step) => stepMarkerOf(step)!);
}

/** Whether an entry is an earlier request's change found later: written under its own time. */
export function isFoundLater(entry: JournalEntry): boolean {
  return entry.foundBy !== undefined;
}

/** The marker's row; `done` when it is written with (or after) everything the commit writes. */
export function stepMarkerRow(marker: StepMarker, done: boolean) {
  const row: StepMarkerRow = {
    requestId: marker.requestId,
    accountId: marker.accountId,
    step: marker.step,
    at: marker.at,
    done,
  };
  return { partitionKey: marker.partitionKey, rowKey: marker.rowKey, ...row };
}

/**
 * Before a commit that is not one transaction: creates its marker, not done, with this run's
 * time, or finds the marker of an earlier run: done (nothing is left to write) or not (that
 * run stopped part way: this one writes its entries again under that run's time, onto the
 * same rows).
 */
export async function claimStepMarker(client: TableClient, marker: StepMarker): Promise<StepClaim> {
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    try {
      await client.createEntity(stepMarkerRow(marker, false));
      return { done: false, at: marker.at };
    } catch (error) {
      if (storageStatus(error) !== 409) throw storageFailure('mark a step commit', error);
    }
    const found = await readStepMarker(client, marker);
    if (found !== undefined) {
      return found.done === true ? { done: true } : { done: false, at: found.at };
    }
  }
  throw storageFailure('mark a step commit', { statusCode: 409 });
}

/** Marks the commit written in full, once everything it writes is. */
export async function markStepDone(client: TableClient, marker: StepMarker): Promise<void> {
  await guardStorage('mark a step commit', () =>
    client.upsertEntity(stepMarkerRow(marker, true), 'Replace'),
  );
}

async function readStepMarker(
  client: TableClient,
  marker: StepMarker,
): Promise<StepMarkerRow | undefined> {
  try {
    return await client.getEntity<StepMarkerRow>(marker.partitionKey, marker.rowKey);
  } catch (error) {
    if (storageStatus(error) === 404) return undefined;
    throw storageFailure('read a step marker', error);
  }
}

/**
 * Deletes the markers of a connector's step commits whose entries are stamped before
 * `beforeDay` began (`YYYY-MM-DD`, UTC), as the write intents of requests received before it
 * are purged, on the same timer and with the same retention. A marker is needed only while
 * its request may still run the commit again: a retried activity (seconds), an episode run
 * again after a restart (minutes), a Functions app stopped with the request in flight. A
 * commit's input is fixed when it is scheduled and a request runs it within its own life,
 * which the retention outlasts: `WRITE_INTENT_RETENTION_DAYS` is at least the longest
 * quarantine hold a connector allows plus a week (write-intent-retention.ts), and the
 * commit's time is the request's own, never earlier than the request's receipt. Answers
 * how many were deleted.
 */
export async function purgeStepMarkers(
  client: TableClient,
  connector: string,
  beforeDay: string,
): Promise<number> {
  const filter = odata`PartitionKey eq ${encodeTableKey(connector)} and RowKey ge ${STEP_MARKER_PREFIX} and RowKey lt ${`${STEP_MARKER_PREFIX}\uffff`} and at lt ${`${beforeDay}T00:00:00.000Z`}`;
  const pages = client
    .listEntities({ queryOptions: { filter, select: ['PartitionKey', 'RowKey'] } })
    .byPage({ maxPageSize: 1000 });
  let deleted = 0;
  for (;;) {
    const page = await guardStorage('list step markers to purge', () => pages.next());
    if (page.done === true) break;
    const rows = page.value.map((row) => ({
      partitionKey: row.partitionKey ?? '',
      rowKey: row.rowKey ?? '',
    }));
    deleted += await deleteInBatches(client, rows, 'purge step markers');
  }
  return deleted;
}
