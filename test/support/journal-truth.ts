import { expect } from 'vitest';
import type { JournalEntry } from '../../src/domain/journal-entry';
import type { TruthEvent } from '../../src/sandbox/truth';

/** Anything that answers the inbound API the way the e2e harness's `TestHost` does. */
export interface JournalSource {
  api(method: 'GET', path: string): Promise<{ status: number; text: string; body: unknown }>;
}

/**
 * A change as both the journal and a truth log can name it: `account change [groupId]`, the
 * account in lower case (Graph's truth log keeps the UPN in lower case).
 */
function line(accountId: string, change: string, groupId: string | undefined): string {
  return [accountId.toLowerCase(), change, ...(groupId === undefined ? [] : [groupId])].join(' ');
}

/**
 * Every journal entry of these requests, through `GET /api/journal?requestId=` (every page).
 *
 * @example
 * const entries = await journalOfRequests(t, [requestId]);
 */
export async function journalOfRequests(
  host: JournalSource,
  requestIds: readonly string[],
): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  for (const requestId of new Set(requestIds)) {
    let token: string | undefined;
    do {
      const query = new URLSearchParams({
        requestId,
        limit: '1000',
        ...(token === undefined ? {} : { continuationToken: token }),
      });
      const page = await host.api('GET', `/api/journal?${query.toString()}`);
      expect(page.status, page.text).toBe(200);
      const body = page.body as { entries: JournalEntry[]; continuationToken?: string };
      entries.push(...body.entries);
      token = body.continuationToken;
    } while (token !== undefined);
  }
  return entries;
}

/** The journal entries as sorted change lines (`ada member removed g-1`), to compare with a truth log. */
export function journalChanges(entries: readonly JournalEntry[]): string[] {
  return entries.map((entry) => line(entry.accountId, entry.change, entry.groupId)).sort();
}

/**
 * The changes a sandbox committed after truth-log position `since`, as sorted change lines:
 * what the journal of the requests that ran meanwhile must hold, no more and no less. A
 * membership removed by deleting its user is not a change of its own, so cascades are left out.
 *
 * @example
 * const since = sandbox.truthLog().at(-1)?.seq ?? 0;
 * // ... the requests run ...
 * expect(journalChanges(await journalOfRequests(t, ids))).toEqual(truthChanges(sandbox.truthLog(), since));
 */
export function truthChanges(events: readonly TruthEvent[], since: number): string[] {
  return events
    .filter((event) => event.seq > since && event.cascade !== true)
    .map((event) => line(event.accountId, event.change, event.groupId))
    .sort();
}

/** The truth log's last position: pass it to `truthChanges` to see only what comes after. */
export function truthMark(events: readonly TruthEvent[]): number {
  return events.at(-1)?.seq ?? 0;
}
