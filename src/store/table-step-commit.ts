import type { TransactionAction } from '@azure/data-tables';
import {
  recordAfterUpdates,
  type AccountRecord,
  type AccountRecordUpdate,
} from '../domain/account-record';
import type { JournalEntry } from '../domain/journal-entry';
import { leaseOfRow, recordOfRow, toAccountRow, type Lease } from './account-row';
import { fits, tooLarge } from './account-row-size';
import { MAX_ROUNDS, type AccountRows, type RowKeys } from './account-rows';
import type { CommittedStep, StepCommit } from './account-state';
import {
  claimStepMarker,
  isFoundLater,
  markStepDone,
  stepMarkerRow,
  stepMarkersOf,
  type StepMarker,
} from './step-marker';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { upsertInBatches } from './table-batches';
import { journalRowsOf } from './table-journal-store';
import { submitTransaction } from './table-transaction';

/** Table Storage: at most 100 operations per transaction; one is the account's row. */
const ACTIONS_WITH_ROW = 99;

/**
 * Writes a step's commit (DESIGN invariant 1) so that running it again writes nothing twice,
 * even with its entries stamped with a later time (a re-run episode): one transaction when
 * the row's version is known, with the entries, the marker of each step they belong to
 * (created: refused when the commit ran before; a commit may carry the steps before its
 * own) and the row; otherwise, or when the transaction is refused, in parts that a second
 * run finds and completes. `release`: releases this owner's lease, for a releasing commit
 * that ran before.
 *
 * @example
 * const committed = await commitStepToRows(rows, commit, () => store.release(connector, accountId, owner));
 */
export async function commitStepToRows(
  rows: AccountRows,
  commit: StepCommit,
  release: () => Promise<void>,
): Promise<CommittedStep> {
  const markers = stepMarkersOf(commit.entries);
  const { etag, stored } = commit;
  if (
    etag !== undefined &&
    stored !== undefined &&
    commit.entries.length + markers.length <= ACTIONS_WITH_ROW
  ) {
    const committed = await commitAtOnce(rows, commit, { etag, stored }, markers);
    if (committed !== undefined) return committed;
  }
  return commitInParts(rows, commit, markers, release);
}

/**
 * The commit as one transaction at the row's version; undefined when it was refused as a
 * whole (nothing of it written): 412, the row changed since (the lease expired and was taken,
 * or this commit ran before); 404, no row under the canonical key (a lease taken before rows
 * were keyed canonically); 409, a step's marker exists (a commit of that step ran before);
 * or the row would be too large.
 */
async function commitAtOnce(
  rows: AccountRows,
  commit: StepCommit,
  version: { etag: string; stored: AccountRecord | null },
  markers: readonly StepMarker[],
): Promise<CommittedStep | undefined> {
  const record = recordAfter(commit, version.stored);
  const row = {
    ...rows.keysOf(commit.connector, commit.accountId),
    // A transaction cannot delete under an ETag: a row left without record or lease stays.
    ...toAccountRow(record, commit.release ? undefined : leaseOf(commit)),
  };
  if (!fits(row)) return undefined;
  const actions: TransactionAction[] = journalRowsOf(commit.entries, rows.accountKey).map(
    (entry): TransactionAction => ['upsert', entry, 'Replace'],
  );
  for (const marker of markers) actions.push(['create', stepMarkerRow(marker, true)]);
  actions.push(['update', row, 'Replace', { etag: version.etag }]);
  try {
    const response = await submitTransaction(rows.client, actions);
    // Sub-responses come in the order of the actions (Azurite names no row in them).
    const written = response.subResponses.at(-1)?.etag;
    return { record, ...(commit.release || written === undefined ? {} : { etag: written }) };
  } catch (error) {
    const status = storageStatus(error);
    if (status !== 412 && status !== 404 && status !== 409) {
      throw storageFailure('record a step', error);
    }
    return undefined;
  }
}

/** A commit written in parts: `done`, the steps a run before this one committed. */
type PartsCommit = StepCommit & { done?: ReadonlySet<number> };

/**
 * The commit in parts: each step's marker first (a run before this one that finished leaves
 * nothing of that step to write, its record update included, as a transaction refused as a
 * whole writes nothing; one that stopped part way gives the time its entries are under),
 * the entries (upserts onto the same rows), the other updates applied to the record as it
 * is now, and the markers last, done.
 */
async function commitInParts(
  rows: AccountRows,
  commit: StepCommit,
  markers: readonly StepMarker[],
  release: () => Promise<void>,
): Promise<CommittedStep> {
  // Changes found later carry their own time: written again onto the same rows.
  const entries: JournalEntry[] = commit.entries.filter(isFoundLater);
  const claimed: StepMarker[] = [];
  const done = new Set<number>();
  for (const marker of markers) {
    const claim = await claimStepMarker(rows.client, marker);
    if (claim.done) {
      done.add(marker.step);
      continue;
    }
    claimed.push(marker);
    for (const entry of commit.entries) {
      if (entry.step === marker.step && !isFoundLater(entry))
        entries.push({ ...entry, at: claim.at });
    }
  }
  const rest = withoutDone(commit, done);
  if (markers.length > 0 && claimed.length === 0) return committedBefore(rows, rest, release);
  if (entries.length > 0) {
    const journal = journalRowsOf(entries, rows.accountKey);
    await guardStorage('record journal entries', () =>
      upsertInBatches(rows.client, journal, 'Replace'),
    );
  }
  const committed = await commitToCurrent(rows, rest);
  for (const marker of claimed) await markStepDone(rows.client, marker);
  return committed;
}

/**
 * The commit knowing the steps in `done` (where the commit names each update's step): a run
 * before this one wrote their record updates, with its own times. Such an update is applied
 * again only where it says more than those times (`recordAfter`): a step held and run again
 * since may have changed what the record knows.
 */
function withoutDone(commit: StepCommit, done: ReadonlySet<number>): PartsCommit {
  return done.size === 0 ? commit : { ...commit, done };
}

/**
 * A commit whose steps with entries all ran before (their markers are done): nothing is
 * journaled again, the record is answered as it is now, and the lease released when the
 * commit releases it and this owner holds it (again: the lease was taken once more since).
 * Steps without entries have no marker: a carried commit whose earlier write of a step with
 * entries lost its answer carries later steps' updates too (a lock or grant nothing
 * confirmed, a deletion), which that write never applied. While the lease is still this
 * owner's, nothing but this request wrote the record since, so the updates are applied to it
 * when they would change more than the times it remembers (a re-run episode stamps the same
 * updates with later times: the first run's record stays).
 */
async function committedBefore(
  rows: AccountRows,
  commit: StepCommit,
  release: () => Promise<void>,
): Promise<CommittedStep> {
  const { connector, accountId, owner } = commit;
  const keys = await rows.heldRowKeys(connector, accountId);
  let held: Awaited<ReturnType<AccountRows['read']>> | 'unread' = 'unread';
  if (commit.update !== undefined || (commit.earlier?.length ?? 0) > 0) {
    held = await rows.read(keys);
    if (held !== undefined && leaseOfRow(held.row)?.owner === owner) {
      const stored = recordOfRow(connector, accountId, held.row);
      if (stateOf(recordAfter(commit, stored)) !== stateOf(stored)) {
        return commitToCurrent(rows, commit, keys);
      }
    }
  }
  if (commit.release) await release();
  // The row as read above, unless the release wrote it since.
  const current = commit.release || held === 'unread' ? await rows.read(keys) : held;
  if (current === undefined) return { record: null };
  const record = recordOfRow(connector, accountId, current.row);
  const ours = leaseOfRow(current.row)?.owner === owner;
  return { record, ...(ours ? { etag: current.etag } : {}) };
}

/**
 * The commit without a known version: the record read, updated and written back under its
 * ETag, keeping whatever lease the row holds (another request's included) unless it is
 * this owner's and the commit releases it.
 */
async function commitToCurrent(
  rows: AccountRows,
  commit: StepCommit,
  known?: RowKeys,
): Promise<CommittedStep> {
  const { connector, accountId } = commit;
  const { client } = rows;
  const keys: RowKeys = known ?? (await rows.heldRowKeys(connector, accountId));
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const current = await rows.read(keys);
    const stored = current === undefined ? null : recordOfRow(connector, accountId, current.row);
    const record = recordAfter(commit, stored);
    const held = current === undefined ? undefined : leaseOfRow(current.row);
    const lease = held?.owner === commit.owner && commit.release ? undefined : held;
    if (current === undefined) {
      if (record === null) return { record: null };
      const entity = { ...keys, ...toAccountRow(record, undefined) };
      // The journal entries are written already: only the record is refused.
      if (!fits(entity)) throw tooLarge(commit, entity);
      const created = await rows.attempt('record a step', 409, () => client.createEntity(entity));
      if (created !== false) return { record };
      continue;
    }
    const entity = { ...keys, ...toAccountRow(record, lease) };
    if (!fits(entity)) throw tooLarge(commit, entity);
    const written = await rows.attempt('record a step', 412, () =>
      client.updateEntity(entity, 'Replace', { etag: current.etag }),
    );
    if (written === false) continue;
    const ours = lease?.owner === commit.owner;
    return { record, ...(ours && written.etag !== undefined ? { etag: written.etag } : {}) };
  }
  throw storageFailure('record a step', { statusCode: 412 });
}

/** The lease a commit keeps when it does not release it. */
function leaseOf(commit: StepCommit): Lease {
  return {
    owner: commit.owner,
    expiresAtMs: commit.leaseExpiresAtMs,
    expiresAt: new Date(commit.leaseExpiresAtMs).toISOString(),
  };
}

/** The record once the commit's updates are applied to it, earlier steps' first (null: none). */
function recordAfter(commit: PartsCommit, stored: AccountRecord | null): AccountRecord | null {
  const updates: [AccountRecordUpdate, number | undefined][] = [
    ...(commit.earlier ?? []).map(
      (update, index) =>
        [update, commit.earlierSteps?.[index]] as [AccountRecordUpdate, number | undefined],
    ),
    ...(commit.update === undefined
      ? []
      : [[commit.update, commit.step] as [AccountRecordUpdate, number | undefined]]),
  ];
  if (updates.length === 0) return stored;
  const { done, connector, accountId } = commit;
  if (done === undefined) {
    return recordAfterUpdates(
      stored,
      connector,
      accountId,
      updates.map(([update]) => update),
    );
  }
  let record = stored;
  for (const [update, step] of updates) {
    const next = recordAfterUpdates(record, connector, accountId, [update]);
    // A done step's update changing no more than the times a run before it wrote: kept out.
    if (step !== undefined && done.has(step) && stateOf(next) === stateOf(record)) continue;
    record = next;
  }
  return record;
}

/** What a record says of the account, without the times it remembers (compared as text). */
function stateOf(record: AccountRecord | null): string {
  if (record === null) return 'null';
  const { createdAt, groupWrites, deletedTargetIds, lostWrites, lostEnabledWrite, ...rest } =
    record;
  const state: Partial<AccountRecord> = { ...rest };
  delete state.linkedAt;
  delete state.enabledAt;
  delete state.profileAt;
  const said: Record<string, unknown> = {
    ...state,
    created: createdAt !== undefined,
    groupWrites: Object.entries(groupWrites ?? {})
      .map(([id, write]) => `${id}:${write.member}`)
      .sort(),
    deletedTargetIds: (deletedTargetIds ?? []).map((deleted) => deleted.id).sort(),
    // A re-run episode stamps the same lost writes with later times.
    lostWrites: (lostWrites ?? []).map((w) => `${w.requestId}:${w.step}:${w.change}:${w.groupId}`),
    lostEnabledWrite:
      lostEnabledWrite === undefined
        ? undefined
        : `${lostEnabledWrite.requestId}:${lostEnabledWrite.step}:${lostEnabledWrite.change}`,
  };
  // Key order depends on how the record was built (read from a row or updated): sorted.
  const keys = Object.keys(said).filter((key) => said[key] !== undefined);
  return JSON.stringify(keys.sort().map((key) => [key, said[key]]));
}
