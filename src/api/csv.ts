import type { HttpRequest, HttpResponseInit } from '@azure/functions';

/** Rows one CSV answer holds at most: larger exports belong to a storage tool. */
export const CSV_LIMIT = 100_000;

/**
 * One CSV field (RFC 4180), quoted when it holds a quote, comma or line break. A value a
 * spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading `'`: names
 * come from targets, and a file opened in a spreadsheet must not run them (OWASP: CSV
 * injection).
 *
 * @example
 * csvField('Sales, EU'); // '"Sales, EU"'
 */
export function csvField(value: string | number | boolean | undefined): string {
  let text = value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Rows as CSV with a header line of `columns` and CRLF line ends.
 *
 * @example
 * csvText(['a', 'b'], [{ a: 1, b: 'x' }]); // 'a,b\r\n1,x\r\n'
 */
export function csvText<C extends string>(
  columns: readonly C[],
  rows: readonly Partial<Record<C, string | number | boolean | undefined>>[],
): string {
  const lines = [columns.join(',')];
  for (const row of rows) lines.push(columns.map((column) => csvField(row[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Whether the caller asks for CSV before JSON (`Accept: text/csv`). */
export function wantsCsv(request: HttpRequest): boolean {
  const accept = (request.headers.get('accept') ?? '').toLowerCase();
  const csv = accept.indexOf('text/csv');
  const json = accept.indexOf('application/json');
  return csv >= 0 && (json < 0 || csv < json);
}

/** What a CSV answer holds: all the filter matched, or the first {@link CSV_LIMIT} of it. */
export interface CsvRows<T> {
  items: T[];
  /** False when the read stopped at {@link CSV_LIMIT} with more to read. */
  complete: boolean;
}

/**
 * Every item a paged read of `filter` gives, page after page of `limit`, up to
 * {@link CSV_LIMIT}. The caller's own `limit` and `continuationToken` do not apply: an
 * export starts at the first item.
 *
 * @example
 * const rows = await readAllPages(filter, 1000, (query) => store.query(query), (p) => p.entries);
 */
export async function readAllPages<
  Q extends { limit?: number; continuationToken?: string },
  P extends { continuationToken?: string },
  T,
>(
  filter: Q,
  limit: number,
  read: (query: Q) => Promise<P>,
  itemsOf: (page: P) => readonly T[],
): Promise<CsvRows<T>> {
  const start: Q = { ...filter, limit };
  delete start.continuationToken;
  const items: T[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await read(
      continuationToken === undefined ? start : { ...start, continuationToken },
    );
    items.push(...itemsOf(page));
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined && items.length < CSV_LIMIT);
  const complete = continuationToken === undefined && items.length <= CSV_LIMIT;
  return { items: items.slice(0, CSV_LIMIT), complete };
}

/** Headers of a CSV answer: how many rows it holds, and whether they are all the filter matched. */
export const CSV_HEADERS = { rows: 'x-csv-rows', complete: 'x-csv-complete' } as const;

/**
 * A CSV answer offered for download as `filename` (letters, digits, `.`, `-` and `_` only:
 * anything else becomes `_`), saying how many rows it holds and whether it is complete.
 */
export function csvAnswer(
  filename: string,
  body: string,
  rows: { count: number; complete: boolean },
): HttpResponseInit {
  return {
    status: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`,
      [CSV_HEADERS.rows]: String(rows.count),
      [CSV_HEADERS.complete]: String(rows.complete),
    },
    body,
  };
}
