/** Display helpers: times in the viewer's locale, durations in words a person reads at once. */

const TIME = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A time for people; the input as it is when it is not a time. */
export function formatTime(iso: string | undefined): string {
  if (iso === undefined) return '';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : TIME.format(ms);
}

/**
 * How long from one time to another: "850 ms", "12.4 s", "3 min 5 s".
 *
 * @example
 * formatDuration('2026-11-22T08:00:00Z', '2026-11-22T08:00:12.400Z'); // '12.4 s'
 */
export function formatDuration(from: string | undefined, to: string | undefined): string {
  if (from === undefined || to === undefined) return '';
  const ms = Date.parse(to) - Date.parse(from);
  if (Number.isNaN(ms) || ms < 0) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A value of unknown shape as text: strings as they are, anything else as JSON. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return '(not shown)';
  }
}

/** The value from an `<input type="datetime-local">` as an ISO time (local time zone). */
export function localInputToIso(value: string): string | undefined {
  if (value === '') return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** An ISO time as the value of an `<input type="datetime-local">`. */
export function isoToLocalInput(iso: string | undefined | null): string {
  if (iso === undefined || iso === null || iso === '') return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
