import { describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../../../src/domain/errors';
import type { ListPage } from '../../../../src/connectors/scim/list-response';
import {
  FIRST_PAGE,
  advancePage,
  incompleteness,
  readAllPages,
  type ListTally,
} from '../../../../src/connectors/scim/pager';

const ids = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ id: `g${from + i}` }));

/** A server over `total` resources with the quirks under test. */
function server(
  total: number,
  quirks: {
    cap?: number;
    ignoreStartIndex?: boolean;
    omitTotal?: boolean;
    /** totalResults counts only the page answered. */
    countsPage?: boolean;
  } = {},
) {
  const requests: number[] = [];
  const fetchPage = async (startIndex: number): Promise<ListPage> => {
    requests.push(startIndex);
    const start = quirks.ignoreStartIndex ? 1 : startIndex;
    const size = quirks.cap ?? total;
    const end = Math.min(total, start + size - 1);
    const resources = start > total ? [] : ids(start, end);
    return {
      resources,
      ...(quirks.omitTotal ? {} : { totalResults: quirks.countsPage ? resources.length : total }),
    };
  };
  return { fetchPage, requests };
}

/** Every id the pager hands out, each page asking for `pageSize` (more than any page here). */
async function readIds(
  fetchPage: (s: number) => Promise<ListPage>,
  pageSize = 1_000,
  tally: ListTally = { read: 0 },
) {
  const out: string[] = [];
  for await (const resource of readAllPages(fetchPage, 'test', tally, pageSize)) {
    out.push(String(resource.id));
  }
  return out;
}

describe('advancePage', () => {
  it('advances by the number of resources returned, not the count asked for', () => {
    const step = advancePage(FIRST_PAGE, { resources: ids(1, 50), totalResults: 200 });
    expect(step.state.nextStartIndex).toBe(51);
    expect(step.stop).toBeUndefined();
  });

  it.each<[string, ListPage, string]>([
    ['an empty page', { resources: [] }, 'empty'],
    ['totalResults reached', { resources: ids(1, 5), totalResults: 5 }, 'total-reached'],
  ])('stops on %s', (_name, page, stop) => {
    expect(advancePage(FIRST_PAGE, page).stop).toBe(stop);
  });

  it('stops on a page that repeats the previous one, handing out nothing twice', () => {
    const first = advancePage(FIRST_PAGE, { resources: ids(1, 3) });
    const again = advancePage(first.state, { resources: ids(1, 3) });
    expect(again.stop).toBe('repeated');
    expect(again.fresh).toEqual([]);
  });
});

describe('readAllPages', () => {
  it.each([
    ['a conforming server', {}, 250, 1],
    ['count capped at 100', { cap: 100 }, 250, 3],
    ['count capped, totalResults missing', { cap: 100, omitTotal: true }, 250, 4],
    [
      'startIndex ignored, everything at once, no total',
      { ignoreStartIndex: true, omitTotal: true },
      250,
      2,
    ],
  ])('reads every resource once from %s', async (_name, quirks, total, pages) => {
    const { fetchPage, requests } = server(total, quirks);
    const read = await readIds(fetchPage);
    expect(read).toHaveLength(total);
    expect(new Set(read).size).toBe(total);
    expect(requests).toHaveLength(pages);
  });

  it('fails, naming the count, when a capped server ignores startIndex', async () => {
    const { fetchPage } = server(250, { cap: 100, ignoreStartIndex: true });
    await expect(readIds(fetchPage)).rejects.toThrow(/repeats its pages.*read 100 of 250/);
  });

  it('reads an empty list with one request', async () => {
    const { fetchPage, requests } = server(0);
    expect(await readIds(fetchPage)).toEqual([]);
    expect(requests).toEqual([1]);
  });
});

describe('readAllPages on a list that stops early', () => {
  it('fails, naming the list and the count, on an empty page before totalResults', async () => {
    const { fetchPage } = server(250, { cap: 100 });
    const cut = (start: number) =>
      start > 100 ? Promise.resolve({ resources: [], totalResults: 250 }) : fetchPage(start);
    await expect(readIds(cut)).rejects.toMatchObject({
      code: 'TARGET_RESPONSE_INVALID',
      message: 'test: the list ends early (a page without resources); read 100 of 250 resources',
    });
  });

  it('tells a caller that must know the list whole when it changed between pages', async () => {
    // 10 of the first page deleted before the second is read: offsets shift by 10.
    const fetchPage = async (start: number): Promise<ListPage> =>
      start === 1
        ? { resources: ids(1, 100), totalResults: 250 }
        : { resources: ids(start + 10, Math.min(250, start + 109)), totalResults: 240 };
    const tally: ListTally = { read: 0 };
    const read: string[] = [];
    for await (const r of readAllPages(fetchPage, 'test', tally)) read.push(String(r.id));
    expect(read).not.toContain('g105');
    expect(incompleteness(tally)).toMatch(/changed while it was read.*250.*240/);
  });

  it.each<[ListTally, string | undefined]>([
    [{ read: 5, firstTotal: 5, lastTotal: 5 }, undefined],
    [{ read: 5 }, 'no totalResults'],
    [{ read: 4, firstTotal: 5, lastTotal: 5 }, 'read 4 of the 5'],
  ])('judges %j whole or not', (tally, why) => {
    const verdict = incompleteness(tally);
    if (why === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toContain(why);
  });
});

describe('readAllPages on a server whose totalResults counts only the page it answers', () => {
  it('reads past the first full page and on to the end, and tells a caller that must know the list whole', async () => {
    const { fetchPage, requests } = server(12, { cap: 5, countsPage: true });
    const tally: ListTally = { read: 0 };
    const read = await readIds(fetchPage, 5, tally);
    expect(read).toEqual(ids(1, 12).map((r) => r.id));
    expect(requests).toEqual([1, 6, 11, 13]);
    expect(incompleteness(tally)).toContain('past its totalResults (5)');
  });

  it.each([
    // The only list an honest server's pages cannot tell from it: exactly one full page.
    [5, [1, 6]],
    [3, [1]],
    [10, [1, 6]],
    [12, [1, 6, 11]],
    [0, [1]],
  ])('costs an honest server of %i resources (pages of 5) the calls %j', async (total, asked) => {
    const { fetchPage, requests } = server(total, { cap: 5 });
    const tally: ListTally = { read: 0 };
    expect(await readIds(fetchPage, 5, tally)).toHaveLength(total);
    expect(requests).toEqual(asked);
    if (total > 0) expect(incompleteness(tally)).toBeUndefined();
  });

  it('takes a refused page past a full page for the end of the list', async () => {
    const { fetchPage } = server(5, { cap: 5 });
    const refusing = async (start: number) => {
      if (start > 5) {
        throw new ProvisioningError('SCIM_INVALID_VALUE', 'startIndex past the end', {
          status: 400,
        });
      }
      return fetchPage(start);
    };
    const tally: ListTally = { read: 0 };
    expect(await readIds(refusing, 5, tally)).toHaveLength(5);
    expect(incompleteness(tally)).toContain('refused a page past its totalResults (400)');
  });
});
