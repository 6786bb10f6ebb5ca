import type { JournalEntry } from '../../src/domain/journal-entry';
import type { RequestReport } from '../../src/domain/request-report';
import type { TrueChange } from './truth';
import type { PlannedRequest } from './workload';

/** What one request did, as the fault suite saw it. */
export interface RequestRun {
  request: PlannedRequest;
  report: RequestReport;
  /** The window of its batch on the shared clock: every true change in it belongs to the batch. */
  startedAt: number;
  finishedAt: number;
  batch: number;
}

export interface JournalVerdict {
  missing: string[];
  doubled: string[];
  invented: string[];
}

const describe = (change: string, group?: string) =>
  group === undefined ? change : `${change} ${group}`;

/**
 * Compares the journal with the true effective changes, request by request: every change a
 * sandbox committed for the account within a request's batch must be journaled for that
 * request once, and nothing else. In a batch of two requests at once, a change belongs to
 * the request whose actions could make it.
 */
export function judgeJournal(
  runs: readonly RequestRun[],
  journal: readonly JournalEntry[],
  truth: readonly TrueChange[],
): JournalVerdict {
  const verdict: JournalVerdict = { missing: [], doubled: [], invented: [] };
  const batches = new Map<number, RequestRun[]>();
  for (const run of runs) batches.set(run.batch, [...(batches.get(run.batch) ?? []), run]);
  for (const batch of batches.values()) {
    const { startedAt, finishedAt } = batch[0]!;
    const inWindow = truth.filter((change) => change.at >= startedAt && change.at <= finishedAt);
    for (const run of batch) {
      const own = inWindow.filter((change) => batch.length === 1 || couldMake(run.request, change));
      const expected = tally(
        own.map((change) => [change.change, describe(change.change, change.group)]),
      );
      const journaled = tally(
        journal
          .filter((entry) => entry.requestId === run.request.requestId)
          .map((entry) => [entry.change, describe(entry.change, entry.groupName)]),
      );
      const id = run.request.requestId;
      for (const [change, count] of expected) {
        const got = journaled.get(change) ?? 0;
        if (got < count)
          verdict.missing.push(`${id}: ${change}${count > 1 ? ` (${got} of ${count})` : ''}`);
      }
      for (const [entry, count] of journaled) {
        const want = expected.get(entry) ?? 0;
        if (want === 0) verdict.invented.push(`${id}: ${entry}`);
        else if (count > want) verdict.doubled.push(`${id}: ${entry} x${count}`);
      }
    }
  }
  return verdict;
}

/**
 * How many times each change happened. A membership or state change happens once per real
 * transition (a request that grants, revokes and grants a group again makes two), so it is
 * counted; a password or an update written again by a retry after a lost answer is one change
 * of the request however many times the target took it.
 */
function tally(changes: readonly (readonly [string, string])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [kind, change] of changes) {
    const again = REWRITTEN.has(kind) ? 0 : (counts.get(change) ?? 0);
    counts.set(change, again + 1);
  }
  return counts;
}

const REWRITTEN = new Set(['password set', 'account updated']);

function couldMake(request: PlannedRequest, change: TrueChange): boolean {
  return request.actions.some((action) => {
    switch (change.change) {
      case 'member added':
        return (
          (action.type === 'grant' || action.type === 'setMemberships') &&
          action.groups.includes(change.group ?? '')
        );
      case 'member removed':
        return action.type === 'revoke' || action.type === 'setMemberships';
      case 'account locked':
        return action.type === 'lock';
      case 'account unlocked':
        return action.type === 'unlock';
      default:
        return false;
    }
  });
}

/** Error codes that mean "a read did not show the write in time": lag, when it is under 30 s. */
export const LAG_CODES = new Set([
  'MEMBERSHIP_MISMATCH',
  'ACCOUNT_STATE_NOT_CONFIRMED',
  'ACCOUNT_NOT_FOUND',
]);

/** The first failed step's error of a report. */
export function failureOf(
  report: RequestReport,
): { code: string; message: string; details?: Record<string, unknown> } | undefined {
  const step = report.steps.find((s) => s.state === 'failed');
  return step?.error === undefined ? undefined : step.error;
}
