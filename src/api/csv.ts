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

/**
 * Every item a paged read gives, page after page, up to {@link CSV_LIMIT}.
 *
 * @example
 * const all = await readAllPages((token) => store.query({ ...filter, continuationToken: token }), (p) => p.entries);
 */
export async function readAllPages<P extends { continuationToken?: string }, T>(
  read: (continuationToken: string | undefined) => Promise<P>,
  itemsOf: (page: P) => readonly T[],
): Promise<T[]> {
  const items: T[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await read(continuationToken);
    items.push(...itemsOf(page));
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined && items.length < CSV_LIMIT);
  return items.slice(0, CSV_LIMIT);
}

/** A CSV answer offered for download as `filename`. */
export function csvAnswer(filename: string, body: string): HttpResponseInit {
  return {
    status: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}"`,
    },
    body,
  };
}
