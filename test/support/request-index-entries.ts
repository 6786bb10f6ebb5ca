import type { RequestIndexEntry } from '../../src/store/request-index';

/**
 * A request index entry received at `minute` past 08:00 on 22 November 2026: a pending
 * create + grant for jane.doe on hr-app, unless `overrides` says otherwise.
 */
export function indexEntry(
  requestId: string,
  minute: number,
  overrides: Partial<RequestIndexEntry> = {},
): RequestIndexEntry {
  return {
    requestId,
    connector: 'hr-app',
    accountId: 'jane.doe',
    actions: ['create', 'grant'],
    status: 'pending',
    source: 'http',
    receivedAt: new Date(Date.UTC(2026, 10, 22, 8, minute)).toISOString(),
    ...overrides,
  };
}

/** The request IDs of a page, in its order. */
export const idsOf = (page: { entries: RequestIndexEntry[] }) =>
  page.entries.map((e) => e.requestId);
