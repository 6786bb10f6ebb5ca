/** Where the app serves the console (src/api/routes.ts: console/{*path}). */
export const BASE = '/api/console';

/** A page of the console, as its URL says: every page has a plain URL to bookmark and share. */
export type Route =
  | { page: 'requests'; query: URLSearchParams }
  | { page: 'request'; requestId: string }
  | { page: 'new-request'; query: URLSearchParams }
  | { page: 'accounts'; query: URLSearchParams }
  | { page: 'account'; connector: string; accountId: string }
  | { page: 'groups'; query: URLSearchParams }
  | { page: 'structure'; connector: string; groupId: string }
  | { page: 'roles'; connector?: string; query: URLSearchParams }
  | { page: 'journal'; query: URLSearchParams }
  | { page: 'drift'; query: URLSearchParams }
  | { page: 'connectors' }
  | { page: 'connector'; connector: string }
  | { page: 'health' }
  | { page: 'not-found'; path: string };

/**
 * The route of a URL path and query under {@link BASE}.
 *
 * @example
 * parseRoute('/api/console/requests/r-1', ''); // { page: 'request', requestId: 'r-1' }
 */
export function parseRoute(pathname: string, search: string): Route {
  const query = new URLSearchParams(search);
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = rest
    .split('/')
    .filter((part) => part !== '')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  const [first, second, third, fourth, ...more] = parts;
  if (first === undefined || (first === 'requests' && second === undefined)) {
    return { page: 'requests', query };
  }
  if (more.length === 0) {
    if (first === 'requests' && second !== undefined && third === undefined) {
      return { page: 'request', requestId: second };
    }
    if (first === 'new' && second === undefined) return { page: 'new-request', query };
    if (first === 'accounts' && second === undefined) return { page: 'accounts', query };
    if (first === 'groups' && second === undefined) return { page: 'groups', query };
    if (first === 'journal' && second === undefined) return { page: 'journal', query };
    if (first === 'drift' && second === undefined) return { page: 'drift', query };
    if (first === 'roles' && third === undefined) {
      return { page: 'roles', ...(second === undefined ? {} : { connector: second }), query };
    }
    if (first === 'connectors' && second === undefined) return { page: 'connectors' };
    if (first === 'health' && second === undefined) return { page: 'health' };
    if (first === 'connectors' && second !== undefined) {
      if (third === undefined) return { page: 'connector', connector: second };
      if (third === 'accounts' && fourth !== undefined) {
        return { page: 'account', connector: second, accountId: fourth };
      }
      if (third === 'groups' && fourth !== undefined) {
        return { page: 'structure', connector: second, groupId: fourth };
      }
    }
  }
  return { page: 'not-found', path: pathname };
}

const segment = encodeURIComponent;

function withQuery(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, value);
  }
  const search = params.toString();
  return `${BASE}${path}${search === '' ? '' : `?${search}`}`;
}

/** The URL of each page. */
export const to = {
  requests: (query?: Record<string, string | undefined>) => withQuery('/requests', query),
  request: (requestId: string) => withQuery(`/requests/${segment(requestId)}`),
  newRequest: (query?: Record<string, string | undefined>) => withQuery('/new', query),
  accounts: (query?: Record<string, string | undefined>) => withQuery('/accounts', query),
  account: (connector: string, accountId: string) =>
    withQuery(`/connectors/${segment(connector)}/accounts/${segment(accountId)}`),
  groups: (query?: Record<string, string | undefined>) => withQuery('/groups', query),
  structure: (connector: string, groupId: string) =>
    withQuery(`/connectors/${segment(connector)}/groups/${segment(groupId)}`),
  roles: (connector?: string, query?: Record<string, string | undefined>) =>
    withQuery(connector === undefined ? '/roles' : `/roles/${segment(connector)}`, query),
  journal: (query?: Record<string, string | undefined>) => withQuery('/journal', query),
  drift: (query?: Record<string, string | undefined>) => withQuery('/drift', query),
  connectors: () => withQuery('/connectors'),
  connector: (connector: string) => withQuery(`/connectors/${segment(connector)}`),
  health: () => withQuery('/health'),
};
