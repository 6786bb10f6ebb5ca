import { describe, expect, it } from 'vitest';
import { findByName } from '../../../../src/connectors/scim/filtered-lookup';
import type { ListPage } from '../../../../src/connectors/scim/list-response';

const user = (id: string, userName: string) => ({ id, userName });

/** A server answering `pages` (page n at startIndex 1 + 2(n-1)), and the calls it got. */
function server(pages: Record<string, unknown>[][]) {
  const asked: (number | undefined)[] = [];
  const fetchPage = async (startIndex: number | undefined): Promise<ListPage> => {
    asked.push(startIndex);
    const page = pages[Math.floor(((startIndex ?? 1) - 1) / 2)] ?? [];
    return { resources: page, totalResults: pages.flat().length };
  };
  return { fetchPage, asked };
}

const find = (pages: Record<string, unknown>[][], name: string) => {
  const s = server(pages);
  return findByName(s.fetchPage, (r) => r.userName, name, 'users').then((found) => ({
    id: found?.id,
    asked: s.asked,
  }));
};

describe('findByName', () => {
  it('takes the one user of the name in another case', async () => {
    expect((await find([[user('u1', 'JSmith')]], 'jsmith')).id).toBe('u1');
  });

  it('takes the user of exactly the name over others in other cases', async () => {
    const pages = [[user('u1', 'AB.Case'), user('u2', 'ab.case')]];
    expect((await find(pages, 'ab.case')).id).toBe('u2');
  });

  it('takes none of several users of the name in other cases', async () => {
    const pages = [[user('u1', 'JSmith'), user('u2', 'JSMITH')]];
    expect((await find(pages, 'jsmith')).id).toBeUndefined();
  });

  it('reads on where the answer holds others (a filter ignored), and still takes none of several', async () => {
    const pages = [
      [user('u0', 'someone'), user('u1', 'JSmith')],
      [user('u2', 'JSMITH'), user('u3', 'else')],
    ];
    const found = await find(pages, 'jsmith');
    expect(found.id).toBeUndefined();
    expect(found.asked).toContain(3);
  });

  it('stops at the user of exactly the name on a later page', async () => {
    const pages = [[user('u0', 'someone'), user('u1', 'JSmith')], [user('u2', 'jsmith')], []];
    const found = await find(pages, 'jsmith');
    expect(found.id).toBe('u2');
    expect(found.asked).toEqual([undefined, 3]);
  });

  it('finds nothing where no name matches', async () => {
    expect((await find([[]], 'nobody')).id).toBeUndefined();
  });
});
