import { ProvisioningError } from '../../domain/errors';
import { SEARCH_MATCH_LIMIT } from '../connector';
import type { ListPage } from './list-response';
import { readAllPages } from './pager';

/**
 * The groups a `displayName co` search matches, every page read as the catalogue and the
 * filtered lookups read them ({@link readAllPages}: a server caps `count`, so the first page
 * is not all the matches). The server's answer is handed on as it is: the compatibility run
 * judges from it whether the server honours `co` (a server that ignores the filter answers
 * every group). More than SEARCH_MATCH_LIMIT matches is refused, naming the search, rather
 * than cut short.
 *
 * @example
 * await searchMatches((start) => groupsPage('displayName co "ales"', start), 'ales', 'connector "crm"');
 * // [{ id: 'g1', displayName: 'Sales' }, { id: 'g2', displayName: 'Sales Ops' }]
 */
export async function searchMatches(
  fetchPage: (startIndex: number) => Promise<ListPage>,
  text: string,
  describe: string,
  pageSize?: number,
): Promise<Record<string, unknown>[]> {
  const subject = `groups containing "${text}"`;
  const found: Record<string, unknown>[] = [];
  for await (const resource of readAllPages(
    fetchPage,
    `${describe}: ${subject}`,
    undefined,
    pageSize,
  )) {
    found.push(resource);
    if (found.length > SEARCH_MATCH_LIMIT) {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        `${describe}: more than ${SEARCH_MATCH_LIMIT} ${subject}: narrow the search`,
        { object: text },
      );
    }
  }
  return found;
}
