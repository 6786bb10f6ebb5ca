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
