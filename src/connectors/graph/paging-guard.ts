import { ProvisioningError } from '../../domain/errors';
import type { GraphErrorContext } from './graph-error-mapper';

/**
 * Empty pages in a row, each with an `@odata.nextLink`, after which a list read stops. Graph
 * may answer a page with no item and a link on (a filtered or delta read scanning on), but
 * not a hundred in a row: that is a server that never ends the list.
 */
export const EMPTY_PAGES_IN_A_ROW_LIMIT = 100;

/**
 * Keeps a list read that follows `@odata.nextLink` (spec: Connector B rule 2) from looping
 * forever: a link it already followed, or `EMPTY_PAGES_IN_A_ROW_LIMIT` empty pages in a row
 * that still link on, is `TARGET_RESPONSE_INVALID` naming what was being read. One guard per
 * list read.
 *
 * @example
 * const guard = new PagingGuard({ connector: 'entra', subject: 'the group catalogue', object: 'entra' }, firstUrl);
 * guard.follow(page.value.length, page.nextLink); // throws when the link repeats
 */
export class PagingGuard {
  private readonly followed = new Set<string>();
  private readonly subject: string;
  private pages = 0;
  private emptyInARow = 0;

  constructor(
    private readonly read: Pick<GraphErrorContext, 'connector' | 'subject' | 'object'>,
    firstUrl?: string,
  ) {
    this.subject = `connector "${read.connector}": reading ${read.subject}`;
    if (firstUrl !== undefined) this.followed.add(firstUrl);
  }

  /** Checks the page just read (its item count) and the link it gives to the next one. */
  follow(items: number, nextLink: string): void {
    const pages = ++this.pages;
    this.emptyInARow = items === 0 ? this.emptyInARow + 1 : 0;
    if (this.followed.has(nextLink)) {
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `${this.subject}: Graph's @odata.nextLink after page ${pages} leads back to a page already ` +
          `read, so the list would never end; the read stops (${nextLink})`,
        { object: this.read.object, details: { pages, nextLink } },
      );
    }
    if (this.emptyInARow >= EMPTY_PAGES_IN_A_ROW_LIMIT) {
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `${this.subject}: Graph answered ${this.emptyInARow} empty pages in a row, each with an ` +
          `@odata.nextLink, so the list would never end; the read stops after ${pages} pages`,
        { object: this.read.object, details: { pages, emptyPagesInARow: this.emptyInARow } },
      );
    }
    this.followed.add(nextLink);
  }
}
