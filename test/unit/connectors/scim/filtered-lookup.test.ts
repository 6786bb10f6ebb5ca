import { describe, expect, it } from 'vitest';
import { findByName } from '../../../../src/connectors/scim/filtered-lookup';
import type { ListPage } from '../../../../src/connectors/scim/list-response';

const user = (id: string, userName: string) => ({ id, userName });

/**
 * A server answering `pages` (page n at startIndex 1 + 2(n-1): pages of 2), and the calls it
 * got; `countsPage`: its totalResults counts only the page answered (a sandbox quirk).
 */
function server(pages: Record<string, unknown>[][], countsPage = false) {
  const asked: (number | undefined)[] = [];
  const fetchPage = async (startIndex: number | undefined): Promise<ListPage> => {
    asked.push(startIndex);
    const page = pages[Math.floor(((startIndex ?? 1) - 1) / 2)] ?? [];
    return { resources: page, totalResults: countsPage ? page.length : pages.flat().length };
  };
  return { fetchPage, asked };
}

const find = (pages: Record<string, unknown>[][], name: string, countsPage = false) => {
  const s = server(pages, countsPage);
  return findByName(s.fetchPage, (r) => r.userName, name, 'users', 2).then((found) => ({
    outcome: found.outcome,
    id: found.outcome === 'found' ? found.resource.id : undefined,
    candidates: found.outcome === 'ambiguous' ? found.candidates.map((c) => c.id) : undefined,
    asked: s.asked,
  }));
};

describe('findByName', () => {
  it('takes the one user of the name in another case', async () => {
    const found = await find([[user('u1', 'JSmith')]], 'jsmith');
    expect(found.id).toBe('u1');
    // An answer that cannot go on (not a full page) costs no further call.
    expect(found.asked).toEqual([undefined]);
  });

  it('takes the user of exactly the name over others in other cases', async () => {
    const pages = [[user('u1', 'AB.Case'), user('u2', 'ab.case')]];
    expect((await find(pages, 'ab.case')).id).toBe('u2');
  });

  it('takes none of several users of the name in other cases: ambiguous, naming them', async () => {
    const pages = [[user('u1', 'JSmith'), user('u2', 'JSMITH')]];
    const found = await find(pages, 'jsmith');
    expect(found).toMatchObject({ outcome: 'ambiguous', candidates: ['u1', 'u2'] });
    // A full page whose totalResults is what it holds: the page after it is asked for.
    expect(found.asked).toEqual([undefined, 3]);
  });

  it('finds the name exactly on the page after a full page of other cases, where totalResults counts only the page', async () => {
    const pages = [[user('u1', 'JSmith'), user('u2', 'JSMITH')], [user('u3', 'jsmith')]];
    const found = await find(pages, 'jsmith', true);
    expect(found).toMatchObject({ outcome: 'found', id: 'u3' });
  });

  it('reads on where the answer holds others (a filter ignored), and still takes none of several', async () => {
    const pages = [
      [user('u0', 'someone'), user('u1', 'JSmith')],
      [user('u2', 'JSMITH'), user('u3', 'else')],
    ];
    const found = await find(pages, 'jsmith');
    expect(found).toMatchObject({ outcome: 'ambiguous', candidates: ['u1', 'u2'] });
    expect(found.asked).toContain(3);
  });

  it('stops at the user of exactly the name on a later page', async () => {
    const pages = [[user('u0', 'someone'), user('u1', 'JSmith')], [user('u2', 'jsmith')], []];
    const found = await find(pages, 'jsmith');
    expect(found.id).toBe('u2');
    expect(found.asked).toEqual([undefined, 3]);
  });

  it('finds nothing where no name matches', async () => {
    expect(await find([[]], 'nobody')).toMatchObject({ outcome: 'none', asked: [undefined] });
  });
});
