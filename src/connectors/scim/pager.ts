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
   * Set by the caller: once `totalResults` is reached, ask for one page more, since a server
   * may count only the page it answers (scim-interop.md); `pastTotal` then says what it held.
   */
  probePastTotal?: boolean;
  /** Resources a page past `totalResults` held (none on a server that counts truly). */
  pastTotal?: number;
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
    return `the server answered resources past its totalResults (${lastTotal}): it does not count its whole list`;
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
 * Iterates every resource of a paged list, one page in memory at a time. A list that ends
 * (an empty page, a page without `Resources`, a repeated page) before `totalResults`
 * resources were read is cut short: that ends in TARGET_RESPONSE_INVALID naming the list,
 * never a silently short list. `tally` (when given) is filled in as the pages come, for
 * callers that must know the list whole ({@link incompleteness}).
 */
export async function* readAllPages(
  fetchPage: (startIndex: number) => Promise<ListPage>,
  describe: string,
  tally: ListTally = { read: 0 },
): AsyncGenerator<Record<string, unknown>> {
  let state = FIRST_PAGE;
  let total: number | undefined;
  let first = true;
  for (;;) {
    const page = await fetchPage(state.nextStartIndex);
    if (first) tally.firstTotal = page.totalResults;
    first = false;
    tally.lastTotal = page.totalResults;
    total = page.totalResults ?? total;
    const step = advancePage(state, page);
    state = step.state;
    tally.read = state.read;
    yield* step.fresh;
    if (step.stop === undefined) continue;
    if (step.stop === 'total-reached' && tally.probePastTotal === true) {
      await probePastTotal(fetchPage, state, tally);
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

/**
 * Asks for the page past `totalResults` and notes what it held. A server that refuses it
 * (any 4xx, as servers that reject a `startIndex` past the end) has not shown the end of its
 * list: that is noted ({@link incompleteness} then calls the read incomplete), never a
 * failure of the read and never an end.
 */
async function probePastTotal(
  fetchPage: (startIndex: number) => Promise<ListPage>,
  state: PagerState,
  tally: ListTally,
): Promise<void> {
  try {
    tally.pastTotal = advancePage(state, await fetchPage(state.nextStartIndex)).fresh.length;
  } catch (error) {
    const status = isProvisioningError(error) ? error.status : undefined;
    if (status === undefined || status < 400 || status >= 500) throw error;
    tally.pastTotalRefused = status;
  }
}
