import { describe, expect, it } from 'vitest';
import { graphConnectorSchema } from '../../../../src/connectors/graph/graph-settings';
import type { GraphContext } from '../../../../src/connectors/graph/graph-context';
import { GraphHttp } from '../../../../src/connectors/graph/graph-http';
import { readGroupStructure } from '../../../../src/connectors/graph/nested-group-reads';
import type { GraphTokenProvider } from '../../../../src/connectors/graph/token-provider';
import type {
  HttpCall,
  HttpResult,
  HttpTransport,
} from '../../../../src/connectors/http/transport';
import { silentLogger } from '../../../../src/domain/logger';

const ROOT = 'https://graph.example/v1.0';
/** A GUID per short name: Graph's group ids are GUIDs. */
const gid = (name: string) =>
  `00000000-0000-4000-8000-${Buffer.from(name).toString('hex').padStart(12, '0')}`;
const groupOf = (name: string) => ({
  '@odata.type': '#microsoft.graph.group',
  id: gid(name),
  displayName: name.toUpperCase(),
});
/** A group the app may not read: Graph returns only its type and id. */
const limitedGroupOf = (name: string) => ({
  '@odata.type': '#microsoft.graph.group',
  id: gid(name),
});
const user = { '@odata.type': '#microsoft.graph.user', id: 'u1', displayName: 'User' };
const denied = {
  error: { code: 'Authorization_RequestDenied', message: 'Insufficient privileges' },
};

/** Answers GET /groups/{id} and /groups/{id}/members from a table by name; `hidden` groups answer 403. */
function contextFor(members: Record<string, object[]>, hidden: string[]) {
  const calls: string[] = [];
  const names = new Map(
    [...Object.keys(members), ...hidden, 'root'].map((name) => [gid(name), name]),
  );
  const answer = (path: string): { status: number; body: unknown } => {
    const match = /^\/groups\/([^/?]+)(\/members)?/.exec(path);
    const name = names.get(match?.[1] ?? '') ?? '';
    if (match?.[2] === undefined) return { status: 200, body: groupOf(name) };
    if (hidden.includes(name)) return { status: 403, body: denied };
    return { status: 200, body: { value: members[name] ?? [] } };
  };
  const transport = {
    send: async (call: HttpCall): Promise<HttpResult> => {
      const url = String(call.url);
      calls.push(`${call.method} ${url.slice(ROOT.length)}`);
      const body = url.endsWith('/$batch')
        ? {
            responses: (call.json as { requests: { id: string; url: string }[] }).requests.map(
              (request) => ({
                id: request.id,
                ...answer(request.url),
              }),
            ),
          }
        : answer(url.slice(ROOT.length)).body;
      const status = url.endsWith('/$batch') ? 200 : answer(url.slice(ROOT.length)).status;
      return {
        status,
        headers: {},
        body,
        text: '',
        describe: `${call.method} ${url}`,
        attempts: 1,
        maybeAppliedBefore: false,
        throttledWaitMs: 0,
        throttledAnswers: 0,
      };
    },
  } as unknown as HttpTransport;
  const settings = graphConnectorSchema.parse({
    name: 'entra',
    kind: 'graph',
    tenantId: 't',
    clientId: 'c',
    clientSecretName: 'secret',
    graphEndpoint: 'https://graph.example',
  });
  const context: GraphContext = {
    settings,
    http: new GraphHttp('https://graph.example', transport),
    tokens: {} as GraphTokenProvider,
    logger: silentLogger,
    sleep: async () => undefined,
    now: () => 0,
    transientSecrets: new Set(),
  };
  return { context, calls };
}

describe('readGroupStructure', () => {
  it('a branch that answers 403 is a notice; the other branches are read', async () => {
    const { context } = contextFor(
      { root: [user, groupOf('a'), groupOf('b')], b: [groupOf('c')] },
      ['a'],
    );
    const structure = await readGroupStructure(context, gid('root'));
    expect(structure.groups.map((group) => group.displayName)).toEqual(['ROOT', 'A', 'B', 'C']);
    expect(structure.complete).toBe(false);
    expect(structure.notices).toEqual([
      expect.objectContaining({
        kind: 'unreadable',
        groupIds: [gid('a')],
        message: expect.stringContaining('GRAPH_PERMISSION_MISSING, HTTP 403') as unknown,
      }),
    ]);
  });

  it('an unreadable root fails with the permission it needs', async () => {
    const { context } = contextFor({}, ['root']);
    await expect(readGroupStructure(context, gid('root'))).rejects.toMatchObject({
      code: 'GRAPH_PERMISSION_MISSING',
      details: { permission: 'GroupMember.Read.All' },
    });
  });

  it('reads a wide level as $batch envelopes of 20, sent side by side', async () => {
    const children = Array.from({ length: 45 }, (_, i) => groupOf(`g${i}`));
    const { context, calls } = contextFor({ root: children }, []);
    const structure = await readGroupStructure(context, gid('root'));
    expect(structure.groups).toHaveLength(46);
    expect(calls.filter((call) => call === 'POST /$batch')).toHaveLength(3);
    expect(structure.stats).toEqual({ levels: 2, requests: 5, roundTrips: 2 });
  });

  it('a nested group the app may not read is shown by its id with a notice saying why, and not read further', async () => {
    const { context, calls } = contextFor({ root: [groupOf('a'), limitedGroupOf('l')] }, []);
    const structure = await readGroupStructure(context, gid('root'));
    expect(structure.groups.find((group) => group.id === gid('l'))).toMatchObject({
      displayName: gid('l'),
      notReadable: expect.stringContaining(
        'the app lacks permission to read this group',
      ) as unknown,
    });
    expect(structure.notices).toEqual([
      expect.objectContaining({ kind: 'not-readable', groupIds: [gid('l')] }),
    ]);
    expect(structure.complete).toBe(false);
    expect(calls.some((call) => call.includes(gid('l')))).toBe(false);
  });

  it('an id that is not a GUID names no group: GROUP_NOT_FOUND, without asking Graph', async () => {
    const { context, calls } = contextFor({}, []);
    await expect(readGroupStructure(context, 'Sales')).rejects.toMatchObject({
      code: 'GROUP_NOT_FOUND',
      object: 'Sales',
    });
    expect(calls).toEqual([]);
  });
});
