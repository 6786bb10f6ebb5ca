import type { ListPage } from './list-response';
import { readAllPages } from './pager';

/**
 * The one resource an `eq` filter asks for, read from the server's answer: the first that
 * `isIt` accepts. An answer that also holds resources the filter excludes shows a server that
 * ignores the filter, or applies a looser one (scim-interop.md: filters silently ignored):
 * the resource asked for may then be on a later page, and the absence on this one proves
 * nothing (DESIGN invariant 11). The lookup pages on, as the catalogue does, until it finds
 * the resource or the server's answer ends. `fetchPage(undefined)` is the plain filtered GET.
 *
 * @example
 * await findFiltered((start) => usersPage(filter, start), (r) => r.userName === 'ada', 'users');
 */
export async function findFiltered(
  fetchPage: (startIndex: number | undefined) => Promise<ListPage>,
  isIt: (resource: Record<string, unknown>) => boolean,
  describe: string,
): Promise<Record<string, unknown> | undefined> {
  const first = await fetchPage(undefined);
  const match = first.resources.find(isIt);
  if (match !== undefined || first.resources.every(isIt)) return match;
  const pages = readAllPages(
    (startIndex) => (startIndex === 1 ? Promise.resolve(first) : fetchPage(startIndex)),
    `${describe}: the server answered the filter with resources it excludes`,
  );
  for await (const resource of pages) if (isIt(resource)) return resource;
  return undefined;
}

/**
 * The resource an `eq` filter on a name asks for, where the name compares in any case on
 * most servers (RFC 7643: userName is caseExact false) but exactly on some (scim-interop.md),
 * which then may hold "JSmith" and "JSMITH" as two: the resource of exactly that name wherever
 * the answer holds one; else the one resource of the name in another case; else undefined,
 * also where the answer holds several in other cases, since none of them is known to be the
 * one asked for (a delete then looks further and says it could not tell). An answer that
 * holds resources the filter excludes is read on to its end, as {@link findFiltered} does.
 *
 * @example
 * await findByName((start) => usersPage(filter, start), (r) => r.userName, 'jsmith', 'users');
 */
export async function findByName(
  fetchPage: (startIndex: number | undefined) => Promise<ListPage>,
  nameOf: (resource: Record<string, unknown>) => unknown,
  name: string,
  describe: string,
): Promise<Record<string, unknown> | undefined> {
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
  if (exact !== undefined) return exact;
  const filtered = first.resources.every((resource) => {
    const found = nameOf(resource);
    return typeof found === 'string' && found.toLowerCase() === lower;
  });
  if (!filtered) {
    const pages = readAllPages(
      (startIndex) => (startIndex === 1 ? Promise.resolve(first) : fetchPage(startIndex)),
      `${describe}: the server answered the filter with resources it excludes`,
    );
    for await (const resource of pages) {
      if (scan([resource]) !== undefined) return resource;
    }
  }
  const [only, another] = variants.values();
  return another === undefined ? only : undefined;
}
