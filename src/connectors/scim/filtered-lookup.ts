import type { ListPage } from './list-response';
import { mayEndLater, readAllPages } from './pager';

/**
 * The pages of a filtered answer past its first (already read): every page, with the first
 * handed back as page 1. An answer that holds resources the filter excludes comes from a
 * server that ignores the filter: its paging is not trusted either, and the page past its
 * `totalResults` is always asked for (a server may count only the page it answers).
 */
function pagesFrom(
  first: ListPage,
  fetchPage: (startIndex: number | undefined) => Promise<ListPage>,
  describe: string,
  filterIgnored: boolean,
  pageSize: number | undefined,
): AsyncGenerator<Record<string, unknown>> {
  return readAllPages(
    (startIndex) => (startIndex === 1 ? Promise.resolve(first) : fetchPage(startIndex)),
    filterIgnored
      ? `${describe}: the server answered the filter with resources it excludes`
      : describe,
    { read: 0, probePastTotal: filterIgnored },
    pageSize,
  );
}

/**
 * The one resource an `eq` filter asks for, read from the server's answer: the first that
 * `isIt` accepts. An answer that also holds resources the filter excludes shows a server that
 * ignores the filter, or applies a looser one (scim-interop.md: filters silently ignored):
 * the resource asked for may then be on a later page, and the absence on this one proves
 * nothing (DESIGN invariant 11). The lookup pages on, as the catalogue does, until it finds
 * the resource or the server's answer ends, also past a `totalResults` that counts only the
 * page answered. `fetchPage(undefined)` is the plain filtered GET.
 *
 * @example
 * await findFiltered((start) => usersPage(filter, start), (r) => r.userName === 'ada', 'users');
 */
export async function findFiltered(
  fetchPage: (startIndex: number | undefined) => Promise<ListPage>,
  isIt: (resource: Record<string, unknown>) => boolean,
  describe: string,
  pageSize?: number,
): Promise<Record<string, unknown> | undefined> {
  const first = await fetchPage(undefined);
  const match = first.resources.find(isIt);
  if (match !== undefined || first.resources.every(isIt)) return match;
  for await (const resource of pagesFrom(first, fetchPage, describe, true, pageSize)) {
    if (isIt(resource)) return resource;
  }
  return undefined;
}

/** What a lookup by name found: one resource, none, or several none of which is known to be it. */
export type NameMatch =
  | { outcome: 'found'; resource: Record<string, unknown> }
  | { outcome: 'none' }
  | { outcome: 'ambiguous'; candidates: Record<string, unknown>[] };

/**
 * The resource an `eq` filter on a name asks for, where the name compares in any case on
 * most servers (RFC 7643: userName is caseExact false) but exactly on some (scim-interop.md),
 * which then may hold "JSmith" and "JSMITH" as two: the resource of exactly that name wherever
 * the answer holds one; else the one resource of the name in another case; else `ambiguous`
 * with the resources of the name in other cases, none of them known to be the one asked for
 * (nothing may act on any of them). An answer that holds resources the filter excludes is read
 * on to its end, as {@link findFiltered} does; one holding only the name in other cases is
 * read on where it may go on past its first page ({@link mayEndLater}: `pageSize` is the count
 * a page asks for), since the name exactly may be on a later page.
 *
 * @example
 * await findByName((start) => usersPage(filter, start), (r) => r.userName, 'jsmith', 'users', 100);
 */
export async function findByName(
  fetchPage: (startIndex: number | undefined) => Promise<ListPage>,
  nameOf: (resource: Record<string, unknown>) => unknown,
  name: string,
  describe: string,
  pageSize?: number,
): Promise<NameMatch> {
  const lower = name.toLowerCase();
  const variants = new Map<unknown, Record<string, unknown>>();
  /** The resource of exactly the name, else undefined with the other-case ones noted. */
  const scan = (resources: Iterable<Record<string, unknown>>) => {
    for (const resource of resources) {
      const found = nameOf(resource);
      if (typeof found !== 'string' || found.toLowerCase() !== lower) continue;
      if (found === name) return resource;
      variants.set(resource.id ?? variants.size, resource);
    }
    return undefined;
  };
  const first = await fetchPage(undefined);
  const exact = scan(first.resources);
  if (exact !== undefined) return { outcome: 'found', resource: exact };
  const filtered = first.resources.every((resource) => {
    const found = nameOf(resource);
    return typeof found === 'string' && found.toLowerCase() === lower;
  });
  if (!filtered || mayEndLater(first, first.resources.length, pageSize)) {
    for await (const resource of pagesFrom(first, fetchPage, describe, !filtered, pageSize)) {
      if (scan([resource]) !== undefined) return { outcome: 'found', resource };
    }
  }
  const candidates = [...variants.values()];
  if (candidates.length === 0) return { outcome: 'none' };
  if (candidates.length === 1) return { outcome: 'found', resource: candidates[0]! };
  return { outcome: 'ambiguous', candidates };
}
