import { DRIFT_TYPES, type DriftSubject, type DriftType } from './drift-finding';

/** A subject waiting for its second read: a candidate finding, or an open finding to close. */
export interface PendingDrift {
  subject: DriftSubject;
  /** The open finding this is about; absent for a candidate new finding. */
  findingId?: string;
  /**
   * For an open finding the first read no longer shows: why it no longer holds (a second read
   * showing the same closes it). Absent on an open finding the first read still shows: only a
   * second read showing it too confirms it again (`lastConfirmed`), as for a new finding.
   */
  closure?: string;
  /** What the first read showed, for the finding's evidence. */
  firstRead: string;
}

/**
 * Whether a second read must show the drift for the subject to hold: a candidate new finding,
 * or an open finding the first read still showed; else (an open finding to close) it must
 * show none.
 */
export function seeksDrift(item: Pick<PendingDrift, 'findingId' | 'closure'>): boolean {
  return item.findingId === undefined || item.closure === undefined;
}

/** An account (or an unlinked member, by name) a request kept busy: judged again after it settles. */
export interface DeferredAccount {
  /** The account ID, or the member's name. */
  account: string;
  /** Not to be read again before this time (ms): the settle window after its last request. */
  notBeforeMs: number;
  /** Why it was deferred: "request r1 running", "request r1 ended at ...". */
  why: string;
  pending: PendingDrift[];
}

/**
 * A reconciliation job's findings as the drift report stores them, read after a pass: the
 * open findings of the connector, and those the job found and closed. Read, never added up
 * from what passes say they did: Durable runs an activity at least once, and a pass run again
 * meets what its first attempt stored.
 */
export interface DriftTally {
  open: Record<DriftType, number>;
  found: Record<DriftType, number>;
  closed: Record<DriftType, number>;
}

/** A tally of nothing, to count into. */
export function emptyTally(): DriftTally {
  return { open: zeroCounts(), found: zeroCounts(), closed: zeroCounts() };
}

/** What one pass of a reconciliation did (the bulk pass, or a pass over deferred accounts). */
export interface ReconciliationPass {
  /** What this attempt of the pass stored (for the log and the metric; the result reads `tally`). */
  found: Partial<Record<DriftType, number>>;
  closed: Partial<Record<DriftType, number>>;
  unconfirmed: { finding: string; why: string }[];
  deferred: DeferredAccount[];
  incomplete: string[];
  notices: string[];
  /** The job's findings as stored once the pass ended; absent on a pass that failed. */
  tally?: DriftTally;
}

/** A pass that has judged nothing yet. */
export function emptyPass(): ReconciliationPass {
  return { found: {}, closed: {}, unconfirmed: [], deferred: [], incomplete: [], notices: [] };
}

/** The bulk pass says more: how it read and what it read. */
export interface BulkPass extends ReconciliationPass {
  mode: 'full' | 'incremental';
  read: { groups: number; accounts: number };
  /**
   * Histories recorded before passes read their tally: the open findings after the pass, as
   * it added them up. Only read when no pass of the job has a tally.
   */
  open?: Partial<Record<DriftType, number>>;
}

/** A reconciliation job's result (`GET /jobs/{id}` once it is done). */
export interface ReconciliationResult {
  /** `full`: the target was read whole; `incremental`: only its changes since the last run. */
  mode: 'full' | 'incremental';
  /** False when a read failed or a request kept an account busy: the result says what was not judged. */
  complete: boolean;
  /** Reads that failed or were throttled past the wait: nothing was concluded from them. */
  incomplete: string[];
  /** Open findings per type once the run ended. */
  findings: Record<DriftType, number>;
  /** Findings this run added, per type. */
  found: Record<DriftType, number>;
  /** Findings this run closed (a later read no longer showed them). */
  closed: number;
  /**
   * Shown by the first read but not by the second: not stored (an open finding: not confirmed
   * again, `lastConfirmed` kept), looked at again next run.
   */
  unconfirmed: { count: number; first: { finding: string; why: string }[] };
  /**
   * Accounts a request ran for, or ended for inside the settle window, when the bulk read was
   * judged: judged after waiting (`rounds` waits of one settle window at most).
   */
  waited: { accounts: number; rounds: number };
  /** Accounts a request kept busy until the job gave up waiting: judged next run. */
  notChecked: { account: string; why: string }[];
  read: { groups: number; accounts: number };
  notices: string[];
}

/** How many unconfirmed subjects a result lists by name (the count is exact). */
const LISTED_UNCONFIRMED = 50;

/**
 * The job's result from its bulk pass and the passes over deferred accounts; accounts still
 * deferred at the end are "not checked". Its counts are the last tally read from the store
 * (a later pass's tally covers the earlier passes'), so a pass run twice counts once.
 *
 * @example
 * reconciliationResult(bulk, [again], []).findings.memberAddedOutside; // 2
 */
export function reconciliationResult(
  bulk: BulkPass,
  later: readonly ReconciliationPass[],
  stillDeferred: readonly DeferredAccount[],
): ReconciliationResult {
  const passes = [bulk, ...later];
  const tally =
    [...passes].reverse().find((pass) => pass.tally !== undefined)?.tally ?? addedUp(bulk, later);
  const unconfirmed = passes.flatMap((pass) => pass.unconfirmed);
  const incomplete = passes.flatMap((pass) => pass.incomplete);
  const notChecked = stillDeferred.map((deferred) => ({
    account: deferred.account,
    why: deferred.why,
  }));
  return {
    mode: bulk.mode,
    complete: incomplete.length === 0 && notChecked.length === 0,
    incomplete,
    findings: { ...tally.open },
    found: { ...tally.found },
    closed: DRIFT_TYPES.reduce((sum, type) => sum + tally.closed[type], 0),
    unconfirmed: { count: unconfirmed.length, first: unconfirmed.slice(0, LISTED_UNCONFIRMED) },
    waited: { accounts: new Set(bulk.deferred.map((d) => d.account)).size, rounds: later.length },
    notChecked,
    read: bulk.read,
    notices: [...new Set(passes.flatMap((pass) => pass.notices))],
  };
}

/**
 * The counts of a job whose passes ran before tallies were read (its history is replayed
 * after an upgrade): as the passes said them.
 */
function addedUp(bulk: BulkPass, later: readonly ReconciliationPass[]): DriftTally {
  const tally = emptyTally();
  for (const type of DRIFT_TYPES) {
    tally.open[type] = bulk.open?.[type] ?? 0;
    for (const pass of [bulk, ...later]) {
      tally.found[type] += pass.found[type] ?? 0;
      tally.closed[type] += pass.closed[type] ?? 0;
      if (pass !== bulk) tally.open[type] += (pass.found[type] ?? 0) - (pass.closed[type] ?? 0);
    }
  }
  return tally;
}

function zeroCounts(): Record<DriftType, number> {
  return Object.fromEntries(DRIFT_TYPES.map((type) => [type, 0])) as Record<DriftType, number>;
}
