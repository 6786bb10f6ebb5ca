import { isProvisioningError, ProvisioningError } from '../../domain/errors';
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
 * What a read of a whole list saw: how many resources it handed out, and the `totalResults`
 * of its first and last pages (undefined where the server did not say).
 */
export interface ListTally {
  read: number;
  firstTotal?: number;
  lastTotal?: number;
  /**
   * Set by the caller: once `totalResults` is reached, always ask for one page more (not only
   * after a full page, {@link mayEndLater}), since a server may count only the page it answers
   * (scim-interop.md); `pastTotal` then says what it held.
   */
  probePastTotal?: boolean;
  /** Resources a page past `totalResults` held (none on a server that counts truly). */
  pastTotal?: number;
  /** The `totalResults` that resources were found past (set with `pastTotal` > 0). */
  passedTotal?: number;
  /** The status with which the server refused the page past `totalResults` (a 4xx). */
  pastTotalRefused?: number;
}

/**
 * Why a list read whole cannot be taken for every resource the server holds, or undefined
 * when it can: the server did not say how many it holds, or the count changed while the list
 * was read (with offset paging, a resource deleted from a page already read moves a later one
 * onto that page, and no page read shows it), or fewer were read than it said.
 */
export function incompleteness(tally: ListTally): string | undefined {
  const { read, firstTotal, lastTotal } = tally;
  if (tally.pastTotalRefused !== undefined) {
    return `the server refused a page past its totalResults (${tally.pastTotalRefused}): the list's end is not proven; read ${read}`;
  }
  if (tally.pastTotal !== undefined && tally.pastTotal > 0) {
    return `the server answered resources past its totalResults (${tally.passedTotal ?? lastTotal}): it does not count its whole list`;
  }
  if (firstTotal === undefined || lastTotal === undefined) {
    return `the server does not say how many resources the list holds (no totalResults); read ${read}`;
  }
  if (firstTotal !== lastTotal) {
    return `the list changed while it was read (totalResults ${firstTotal} on the first page, ${lastTotal} on the last): resources may have moved past the pages read; read ${read}`;
  }
  if (read !== lastTotal) return `read ${read} of the ${lastTotal} resources the server counts`;
  return undefined;
}

/**
 * Whether a page that reached `totalResults` may still not end the list: a server may count
 * only the page it answers (scim-interop.md; the sandbox's `totalResultsIsPageSize`), and a
 * full page (as many as `pageSize` asked, or any page when the count asked is unknown) whose
 * totalResults is no more than it holds cannot tell that server from an honest one. A server
 * that counted past its first page has shown it counts the list (RFC 7644 §3.4.2.4: the total
 * number of results of the query), so on an honest server only a list of exactly one full
 * page costs a page more; a later page whose totalResults is below what was read (a shrunk
 * list, or a server that lost count) is looked past too.
 */
export function mayEndLater(page: ListPage, read: number, pageSize: number | undefined): boolean {
  const count = page.resources.length;
  if (count === 0) return false;
  const total = page.totalResults;
  if (total !== undefined && total > read) return true;
  const full = pageSize === undefined || count >= pageSize;
  return full && (total === undefined || read === count || total < read);
}

/**
 * Iterates every resource of a paged list, one page in memory at a time. A list that ends
 * (an empty page, a page without `Resources`, a repeated page) before `totalResults`
 * resources were read is cut short: that ends in TARGET_RESPONSE_INVALID naming the list,
 * never a silently short list. A page that reaches `totalResults` where the server may count
 * only its page ({@link mayEndLater}; always when `tally.probePastTotal`) is followed by one
 * more: empty (or refused with a 4xx, as servers that reject a `startIndex` past the end do),
 * the list has ended; holding resources, the server's totalResults is no end, and the list is
 * read on to an empty or repeated page, as for a server that gives none. `pageSize` is the
 * `count` each page asks for (unknown: every page is taken for full). `tally` (when given) is
 * filled in as the pages come, for callers that must know the list whole
 * ({@link incompleteness}).
 */
export async function* readAllPages(
  fetchPage: (startIndex: number) => Promise<ListPage>,
  describe: string,
  tally: ListTally = { read: 0 },
  pageSize?: number,
): AsyncGenerator<Record<string, unknown>> {
  let state = FIRST_PAGE;
  let total: number | undefined;
  let first = true;
  /** Whether the server's totalResults still stands for the list's end. */
  let counted = true;
  for (;;) {
    const page = await fetchPage(state.nextStartIndex);
    if (first) tally.firstTotal = page.totalResults;
    first = false;
    tally.lastTotal = page.totalResults;
    total = page.totalResults ?? total;
    const step = advancePage(state, counted ? page : uncounted(page));
    state = step.state;
    tally.read = state.read;
    yield* step.fresh;
    if (step.stop === undefined) continue;
    if (!counted) return;
    if (
      step.stop === 'total-reached' &&
      (tally.probePastTotal === true || mayEndLater(page, state.read, pageSize))
    ) {
      const past = await pageAfterTotal(fetchPage, state, tally);
      tally.pastTotal = past?.fresh.length ?? 0;
      if (past === undefined || past.fresh.length === 0) return;
      // The server does not count its whole list: read on as if it gave no totalResults.
      tally.passedTotal = total;
      counted = false;
      state = past.state;
      tally.read = state.read;
      yield* past.fresh;
      continue;
    }
    if (step.stop !== 'total-reached' && total !== undefined && state.read < total) {
      const why =
        step.stop === 'repeated'
          ? 'the server repeats its pages (it ignores startIndex)'
          : 'the list ends early (a page without resources)';
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `${describe}: ${why}; read ${state.read} of ${total} resources`,
        { details: { read: state.read, totalResults: total } },
      );
    }
    return;
  }
}

/** The page without its `totalResults`, once that is known not to count the list. */
function uncounted(page: ListPage): ListPage {
  const rest = { ...page };
  delete rest.totalResults;
  return rest;
}

/**
 * The page past `totalResults`, as a step of the pager. A server that refuses it (any 4xx, as
 * servers that reject a `startIndex` past the end) has not shown the end of its list: that is
 * noted ({@link incompleteness} then calls the read incomplete) and undefined returned, never
 * a failure of the read.
 */
async function pageAfterTotal(
  fetchPage: (startIndex: number) => Promise<ListPage>,
  state: PagerState,
  tally: ListTally,
): Promise<PageStep | undefined> {
  try {
    return advancePage(state, uncounted(await fetchPage(state.nextStartIndex)));
  } catch (error) {
    const status = isProvisioningError(error) ? error.status : undefined;
    if (status === undefined || status < 400 || status >= 500) throw error;
    tally.pastTotalRefused = status;
    return undefined;
  }
}
