import { describe, expect, it } from 'vitest';
import type { GroupStructure } from '../../../src/console/api-types';
import { descendants, groupTree } from '../../../src/console/group-tree';
import { requestBody, type RequestDraft } from '../../../src/console/request-draft';
import { parseRoute, to } from '../../../src/console/routes';

// The console's logic that needs no browser: its URLs, the request it sends, the tree it
// draws and the CSV it writes.

describe('console URLs', () => {
  it.each([
    ['/api/console', '', { page: 'requests' }],
    ['/api/console/requests', '?status=failed', { page: 'requests' }],
    ['/api/console/requests/r-1', '', { page: 'request', requestId: 'r-1' }],
    ['/api/console/new', '', { page: 'new-request' }],
    [
      '/api/console/connectors/graph/accounts/jane%40contoso.com',
      '',
      { page: 'account', connector: 'graph', accountId: 'jane@contoso.com' },
    ],
    [
      '/api/console/connectors/graph/groups/g%2F1',
      '',
      { page: 'structure', connector: 'graph', groupId: 'g/1' },
    ],
    ['/api/console/roles/hr-app', '', { page: 'roles', connector: 'hr-app' }],
    ['/api/console/drift', '?connector=hr-app&type=unlinkedMember', { page: 'drift' }],
    ['/api/console/connectors/hr-app', '', { page: 'connector', connector: 'hr-app' }],
    ['/api/console/health', '', { page: 'health' }],
    ['/api/console/health/x', '', { page: 'not-found' }],
    ['/api/console/requests/a/b', '', { page: 'not-found' }],
  ])('%s%s is the %o page', (path, search, expected) => {
    expect(parseRoute(path, search)).toMatchObject(expected);
  });

  it('builds URLs that parse back to the same page, leaving out empty filters', () => {
    const url = new URL(to.account('graph', 'a/b?c#d'), 'http://x');
    expect(parseRoute(url.pathname, url.search)).toMatchObject({
      page: 'account',
      connector: 'graph',
      accountId: 'a/b?c#d',
    });
    expect(to.requests({ connector: 'hr', accountId: '', status: undefined })).toBe(
      '/api/console/requests?connector=hr',
    );
  });
});

describe('the request the form sends', () => {
  const draft: RequestDraft = {
    connector: 'hr',
    requestId: '',
    requestedBy: '',
    reason: '',
    correlationId: '',
    accountId: ' jane.doe ',
    displayName: 'Jane Doe',
    givenName: '',
    familyName: '',
    email: '',
    attributes: 'costCenter = 4711\n\nbadge=a=b',
    actions: [
      { key: 1, type: 'update', groups: ['ignored'] },
      { key: 2, type: 'grant', groups: ['Sales'] },
    ],
  };

  it('leaves out empty fields and a password no action uses', () => {
    expect(requestBody(draft, 'Secret-1')).toEqual({
      connector: 'hr',
      account: {
        accountId: 'jane.doe',
        displayName: 'Jane Doe',
        attributes: { costCenter: '4711', badge: 'a=b' },
      },
      actions: [{ type: 'update' }, { type: 'grant', groups: ['Sales'] }],
    });
  });

  it('sends the password with a create, the request ID and who asked and why when given', () => {
    const body = requestBody(
      {
        ...draft,
        requestId: 'r-9',
        requestedBy: ' ada@contoso.com ',
        correlationId: 'CHG-7',
        actions: [{ key: 1, type: 'create', groups: [] }],
      },
      'Secret-1',
    );
    expect(body).toMatchObject({
      requestId: 'r-9',
      requestedBy: 'ada@contoso.com',
      correlationId: 'CHG-7',
      password: 'Secret-1',
      actions: [{ type: 'create' }],
    });
    expect(body).not.toHaveProperty('reason');
  });
});

describe('the group tree', () => {
  const link = (id: string) => ({ id, displayName: id.toUpperCase() });
  const structure: GroupStructure = {
    root: link('r'),
    groups: [
      { ...link('r'), depth: 0, path: [link('r')] },
      { ...link('a'), depth: 1, path: [link('r'), link('a')] },
      { ...link('b'), depth: 1, path: [link('r'), link('b')] },
      { ...link('c'), depth: 2, path: [link('r'), link('a'), link('c')] },
    ],
    edges: [
      { from: 'r', to: 'a' },
      { from: 'r', to: 'b' },
      { from: 'a', to: 'c' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'r' },
    ],
    notices: [{ kind: 'cycle', message: 'R -> A -> C -> R', groupIds: ['r', 'a', 'c'] }],
    complete: true,
  };

  it('puts each group under the group that first reached it, and keeps the other relations', () => {
    const root = groupTree(structure)!;
    expect(root.children.map((n) => n.group.id)).toEqual(['a', 'b']);
    expect(root.children[0]!.children.map((n) => n.group.id)).toEqual(['c']);
    expect(root.children[1]!.alsoContains).toEqual([link('c')]);
    expect(root.children[0]!.children[0]!.alsoContains).toEqual([link('r')]);
    expect(descendants(root)).toBe(3);
  });

  it('puts a notice on every group it names', () => {
    const root = groupTree(structure)!;
    expect(root.notices.map((n) => n.kind)).toEqual(['cycle']);
    expect(root.children[1]!.notices).toEqual([]);
  });
});
