/**
 * Hands a text made in the page to the browser as a download (the journal's CSV, the drift
 * report's): the key stays in a header, which a plain link to the API could not carry.
 */
export function downloadText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * What a page says once a CSV is downloaded: how many rows the service put in, and, when it
 * stopped at its limit, that the filter must be narrowed for the rest.
 *
 * @example
 * csvDownloaded({ rows: 12, complete: true }, 'entries'); // '12 entries downloaded.'
 */
export function csvDownloaded(csv: { rows: number; complete: boolean }, what: string): string {
  return csv.complete
    ? `${csv.rows} ${what} downloaded.`
    : `The first ${csv.rows} ${what} downloaded: narrow the filter for the rest.`;
}
