import { ProvisioningError } from '../../domain/errors';
import type { ListPage } from './list-response';

export interface PagerState {
  /** 1-based index of the next resource to ask for (RFC 7644 §3.4.2.4). */
  nextStartIndex: number;
  /** Resources read so far. */
  read: number;
  /** A fingerprint of the last page, to notice a server that repeats pages. */
  lastPage?: string;
}

export type PageStop = 'empty' | 'total-reached' | 'repeated';

export interface PageStep {
  state: PagerState;
  /** Resources of this page to hand out (none when the page repeats the last one). */
  fresh: Record<string, unknown>[];
  /** Set when paging must stop after this page. */
  stop?: PageStop;
}

export const FIRST_PAGE: PagerState = { nextStartIndex: 1, read: 0 };

/**
 * Decides what a page means for paging (scim-interop.md: capped `count`, ignored
 * `startIndex`, missing or string `totalResults`, repeated pages): advance by the number
 * of resources actually returned; stop on an empty page, when `totalResults` is reached,
 * or when a page repeats the previous one.
 *
 * @example
 * advancePage(FIRST_PAGE, { resources: [{ id: 'a' }], totalResults: 1 }).stop; // 'total-reached'
 */
export function advancePage(state: PagerState, page: ListPage): PageStep {
  const count = page.resources.length;
  if (count === 0) return { state, fresh: [], stop: 'empty' };
  const fingerprint = `${count}:${String(page.resources[0]?.id)}:${String(page.resources[count - 1]?.id)}`;
  if (fingerprint === state.lastPage) return { state, fresh: [], stop: 'repeated' };
  const next: PagerState = {
    nextStartIndex: state.nextStartIndex + count,
    read: state.read + count,
    lastPage: fingerprint,
  };
  if (page.totalResults !== undefined && next.read >= page.totalResults) {
    return { state: next, fresh: page.resources, stop: 'total-reached' };
  }
  return { state: next, fresh: page.resources };
}

/**
 * Iterates every resource of a paged list, one page in memory at a time. A server that
 * repeats its first page while claiming more results cannot be read whole: that ends in
 * an error rather than a silently short catalogue.
 */
export async function* readAllPages(
  fetchPage: (startIndex: number) => Promise<ListPage>,
  describe: string,
): AsyncGenerator<Record<string, unknown>> {
  let state = FIRST_PAGE;
  let total: number | undefined;
  for (;;) {
    const page = await fetchPage(state.nextStartIndex);
    total = page.totalResults ?? total;
    const step = advancePage(state, page);
    state = step.state;
    yield* step.fresh;
    if (step.stop === undefined) continue;
    if (step.stop === 'repeated' && total !== undefined && state.read < total) {
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `${describe}: the server repeats its pages (it ignores startIndex); read ${state.read} of ${total} resources`,
        { details: { read: state.read, totalResults: total } },
      );
    }
    return;
  }
}
