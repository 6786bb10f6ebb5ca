import { HttpRequest } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { CSV_LIMIT, csvAnswer, readAllPages, wantsCsv } from '../../../src/api/csv';

/** A store of `total` numbered items, paged by `limit` from a token that is the next index. */
function pagedStore(total: number) {
  const asked: { limit?: number; continuationToken?: string }[] = [];
  const query = async (q: { limit?: number; continuationToken?: string; kind?: string }) => {
    asked.push({ ...q });
    const from = Number(q.continuationToken ?? 0);
    const to = Math.min(total, from + (q.limit ?? 10));
    const items = Array.from({ length: to - from }, (_, i) => from + i);
    return { items, ...(to < total ? { continuationToken: String(to) } : {}) };
  };
  return { asked, query };
}

describe('readAllPages: what a CSV export reads', () => {
  it('starts at the first item whatever token and page size the caller sent, and keeps the filter', async () => {
    const store = pagedStore(25);
    const rows = await readAllPages(
      { kind: 'grant', limit: 3, continuationToken: '20' },
      10,
      store.query,
      (page) => page.items,
    );
    expect(rows).toEqual({ items: Array.from({ length: 25 }, (_, i) => i), complete: true });
    expect(store.asked).toEqual([
      { kind: 'grant', limit: 10 },
      { kind: 'grant', limit: 10, continuationToken: '10' },
      { kind: 'grant', limit: 10, continuationToken: '20' },
    ]);
  });

  it('stops at the limit and says the export is incomplete', async () => {
    const store = pagedStore(CSV_LIMIT + 5);
    const rows = await readAllPages({}, 1000, store.query, (page) => page.items);
    expect(rows.items).toHaveLength(CSV_LIMIT);
    expect(rows.complete).toBe(false);
  });
});

describe('csvAnswer', () => {
  it('says how many rows it holds and whether they are all, under a safe filename', () => {
    const answer = csvAnswer('journal-"x"\r\n.csv', 'a\r\n', { count: 0, complete: false });
    expect(answer.headers).toMatchObject({
      'content-disposition': 'attachment; filename="journal-_x___.csv"',
      'x-csv-rows': '0',
      'x-csv-complete': 'false',
    });
  });
});

describe('wantsCsv', () => {
  const ask = (accept: string) =>
    wantsCsv(
      new HttpRequest({ method: 'GET', url: 'http://127.0.0.1/api/journal', headers: { accept } }),
    );

  it('answers CSV only when text/csv comes before JSON', () => {
    expect(ask('text/csv')).toBe(true);
    expect(ask('text/csv, application/json')).toBe(true);
    expect(ask('application/json, text/csv')).toBe(false);
    expect(ask('application/json')).toBe(false);
    expect(ask('')).toBe(false);
  });
});
