import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './local-host-harness';

/**
 * Issue 12, findings 1, 3 and 4, through the local host over HTTP against its Graph
 * sandbox: the target's truth (the sandbox's committed state) judges the writes.
 */
let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

const graph = () => t.host.sandboxes!.graph;

describe('path segments that are not percent-encoded UTF-8', () => {
  const bad = ['%ED%A0%80', '%E0%A4%A', '%FF', 'a%C3'];
  const routes = (segment: string): [string, string][] => [
    ['POST', `/api/connectors/${segment}/status`],
    ['POST', `/api/connectors/${segment}/imports`],
    ['POST', `/api/connectors/${segment}/compatibility-run`],
    ['GET', `/api/connectors/${segment}/roles`],
    ['GET', `/api/connectors/${segment}/groups?search=a`],
    ['GET', `/api/connectors/graph-sandbox/accounts/${segment}`],
    ['GET', `/api/connectors/graph-sandbox/groups/${segment}/structure`],
    ['GET', `/api/requests/${segment}`],
    ['GET', `/api/jobs/${segment}`],
    ['GET', `/api/${segment}`],
  ];

  it('answer 400 PATH_SEGMENT_INVALID naming the segment, on every route', async () => {
    for (const segment of bad) {
      for (const [method, path] of routes(segment)) {
        const answer = await t.api(method, path, method === 'POST' ? {} : undefined);
        expect([path, answer.status]).toEqual([path, 400]);
        expect(answer.body.error).toMatchObject({ code: 'PATH_SEGMENT_INVALID', object: segment });
        expect(answer.body.error.message).toContain(`"${segment}"`);
      }
    }
    expect(t.logs.join('\n')).not.toContain('unhandled failure');
  });

  it('well-formed encodings still reach their route', async () => {
    const answer = await t.api('GET', '/api/connectors/graph-sandbox/accounts/%C3%A9mile');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('ACCOUNT_NOT_FOUND');
  });
});

describe('structure of an unknown group', () => {
  it('answers 404 GROUP_NOT_FOUND for an id that is no group id and for a GUID no group has', async () => {
    for (const id of ['Engineering', '00000000-0000-4000-8000-000000000000']) {
      const answer = await t.api('GET', `/api/connectors/graph-sandbox/groups/${id}/structure`);
      expect([id, answer.status]).toEqual([id, 404]);
      expect(answer.body.error).toMatchObject({ code: 'GROUP_NOT_FOUND', object: id });
    }
  });
});

describe('a group the app may not read (limited)', () => {
  it('is shown in the account view by its id with a notice saying why', async () => {
    const user = graph().addUser({ userPrincipalName: 'limited.view@contoso.example' });
    const hidden = graph().addGroup({ displayName: 'Hidden Admins', limited: true });
    const visible = graph().addGroup({ displayName: 'Visible Team' });
    graph().addMember(hidden.id, user.id);
    graph().addMember(visible.id, user.id);
    const answer = await t.api(
      'GET',
      '/api/connectors/graph-sandbox/accounts/limited.view@contoso.example',
    );
    expect(answer.status).toBe(200);
    const reason =
      'the app lacks permission to read this group: Microsoft Graph returned only its type and id';
    expect(answer.body.directMemberships).toEqual(
      expect.arrayContaining([
        { id: visible.id, displayName: 'Visible Team' },
        { id: hidden.id, displayName: hidden.id, notReadable: reason },
      ]),
    );
    expect(answer.body.notices).toContainEqual({
      kind: 'not-readable',
      message: `group ${hidden.id}: ${reason}; its parent groups were not read, so the result is incomplete`,
      groupIds: [hidden.id],
    });
    expect(answer.text).not.toContain('Hidden Admins');
  });

  it('a request granting it fails before any write, naming the group', async () => {
    const group = graph().addGroup({ displayName: 'Locked Away', limited: true });
    const accountId = 'limited.grant@contoso.example';
    const user = graph().addUser({ userPrincipalName: accountId });
    graph().clearTruthLog();
    const submitted = await t.api('POST', '/api/requests', {
      requestId: 'limited-grant',
      connector: 'graph-sandbox',
      account: { accountId },
      actions: [{ type: 'grant', groups: [{ id: group.id }] }],
    });
    expect(submitted.status).toBe(202);
    const report = await t.finished('limited-grant');
    expect(report.status).toBe('failed');
    expect(report.steps[0].error.message).toContain(group.id);
    expect(graph().groupIdsOf(user.id)).toEqual([]);
    expect(graph().truthLog()).toEqual([]);
  });
});

describe('an account that holds a directory role', () => {
  it('a lock fails with GRAPH_ACCOUNT_PRIVILEGED naming the role, and the account stays enabled', async () => {
    const accountId = 'role.holder@contoso.example';
    const user = graph().addUser({ userPrincipalName: accountId });
    graph().addMember(
      graph().addDirectoryRole({ displayName: 'Helpdesk Administrator' }).id,
      user.id,
    );
    graph().clearTruthLog();
    const submitted = await t.api('POST', '/api/requests', {
      requestId: 'privileged-lock',
      connector: 'graph-sandbox',
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    expect(submitted.status).toBe(202);
    const report = await t.finished('privileged-lock');
    expect(report.status).toBe('failed');
    expect(report.steps[0].error).toMatchObject({ code: 'GRAPH_ACCOUNT_PRIVILEGED' });
    expect(report.steps[0].error.message).toContain('Helpdesk Administrator');
    expect(report.steps[0].error.message).toContain('Privileged Authentication Administrator');
    expect(report.steps[0].error.message).not.toMatch(/needs the application permission/);
    expect(graph().getUser(user.id)?.accountEnabled).toBe(true);
    expect(graph().truthLog()).toEqual([]);
  });
});
