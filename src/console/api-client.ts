import type { ApiErrorBody } from './api-types';

/**
 * How the console reaches the API. `key`: at /api/... with the key the user typed (the local
 * host's printed key, or a function key). `signed-in`: at /api/signed-in/... with the App
 * Service Authentication session cookie the browser already holds.
 */
export type Session = { mode: 'key'; key: string } | { mode: 'signed-in' };

/** An answer of the API other than 2xx, with its error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
  }

  get code(): string {
    return this.body.code;
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface Api {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  /** A GET answered as text in another format (`text/plain`): the service's own rendering. */
  getText(path: string, query: Query, accept: string): Promise<string>;
  /** A GET answered as CSV, with how many rows the service put in and whether that is all. */
  getCsv(path: string, query: Query): Promise<CsvDownload>;
}

/** A CSV the service rendered, as its `x-csv-rows` and `x-csv-complete` headers describe it. */
export interface CsvDownload {
  text: string;
  rows: number;
  /** False when the service stopped at its limit with more rows matching. */
  complete: boolean;
}

/** A path under the API with its query, leaving out empty values. */
export function apiPath(base: string, path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return `${base}${path}${search === '' ? '' : `?${search}`}`;
}

/**
 * The API client of a session. The key travels in a header only, never in a URL (URLs end
 * up in history, logs and Referer headers). `onUnauthorized` is told when the API no longer
 * accepts the session.
 */
export function createApi(session: Session, onUnauthorized: () => void): Api {
  const base = session.mode === 'key' ? '/api/' : '/api/signed-in/';
  const headers: Record<string, string> = {};
  if (session.mode === 'key') headers['x-functions-key'] = session.key;
  const send = async (
    method: string,
    url: string,
    body: unknown,
    accept = 'application/json',
  ): Promise<{ text: string; parsed: unknown; headers: Headers }> => {
    const sent = { ...headers, accept };
    const response = await fetch(url, {
      method,
      headers: body === undefined ? sent : { ...sent, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
      credentials: 'same-origin',
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: an answer from something in front of the app (a proxy, the platform)
    }
    if (!response.ok) {
      const error = (parsed as { error?: ApiErrorBody } | undefined)?.error ?? {
        code: `HTTP_${response.status}`,
        message: `the service answered ${response.status} ${response.statusText}`,
      };
      if (response.status === 401) onUnauthorized();
      throw new ApiError(response.status, error);
    }
    return { text, parsed, headers: response.headers };
  };
  const call = async <T>(method: string, url: string, body?: unknown): Promise<T> =>
    (await send(method, url, body)).parsed as T;
  return {
    get: (path, query) => call('GET', apiPath(base, path, query)),
    post: (path, body) => call('POST', apiPath(base, path), body ?? {}),
    getText: async (path, query, accept) =>
      (await send('GET', apiPath(base, path, query), undefined, accept)).text,
    getCsv: async (path, query) => {
      const { text, headers: answered } = await send(
        'GET',
        apiPath(base, path, query),
        undefined,
        'text/csv',
      );
      return {
        text,
        rows: Number(answered.get('x-csv-rows') ?? 0),
        complete: answered.get('x-csv-complete') !== 'false',
      };
    },
  };
}

/** Asks who the API takes a session for: 401 when it takes it for nobody. */
export async function probeSession(session: Session): Promise<unknown> {
  return createApi(session, () => undefined).get('me');
}
