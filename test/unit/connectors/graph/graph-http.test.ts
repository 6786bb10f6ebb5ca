import { describe, expect, it } from 'vitest';
import { GraphHttp } from '../../../../src/connectors/graph/graph-http';
import type {
  HttpCall,
  HttpResult,
  HttpTransport,
} from '../../../../src/connectors/http/transport';

function pagedTransport(pages: Record<string, unknown>) {
  const urls: string[] = [];
  const transport = {
    send: async (call: HttpCall): Promise<HttpResult> => {
      const url = String(call.url);
      urls.push(url);
      const body = pages[url];
      return body === undefined
        ? {
            status: 404,
            headers: {},
            body: { error: { code: 'Request_ResourceNotFound' } },
            text: '',
            describe: `GET ${url}`,
            attempts: 1,
            maybeAppliedBefore: false,
            throttledWaitMs: 0,
            throttledAnswers: 0,
          }
        : {
            status: 200,
            headers: {},
            body,
            text: '',
            describe: `GET ${url}`,
            attempts: 1,
            maybeAppliedBefore: false,
            throttledWaitMs: 0,
            throttledAnswers: 0,
          };
    },
  } as unknown as HttpTransport;
  return { transport, urls };
}

const context = {
  connector: 'entra',
  task: 'readGroups' as const,
  subject: 'groups',
  object: 'x',
  notFound: 'GROUP_NOT_FOUND' as const,
};

describe('GraphHttp', () => {
  it('follows @odata.nextLink verbatim until it is absent', async () => {
    const next = 'https://graph.example/v1.0/groups?$skiptoken=X%2BY&$select=id';
    const { transport, urls } = pagedTransport({
      'https://graph.example/v1.0/groups?$select=id': {
        value: [{ id: 'a' }],
        '@odata.nextLink': next,
      },
      [next]: { value: [{ id: 'b' }] },
    });
    const http = new GraphHttp('https://graph.example', transport);
    const items = await http.list(
      { method: 'GET', path: '/groups', query: { $select: 'id' } },
      context,
    );
    expect(items.map((item) => item.id)).toEqual(['a', 'b']);
    expect(urls).toEqual(['https://graph.example/v1.0/groups?$select=id', next]);
  });

  it('never sends the token to a nextLink on another host', async () => {
    const { transport, urls } = pagedTransport({
      'https://graph.example/v1.0/groups': {
        value: [],
        '@odata.nextLink': 'https://evil.example/v1.0/groups?p=2',
      },
    });
    const http = new GraphHttp('https://graph.example', transport);
    await expect(http.list({ method: 'GET', path: '/groups' }, context)).rejects.toMatchObject({
      code: 'TARGET_RESPONSE_INVALID',
    });
    expect(urls).toHaveLength(1);
  });

  it('maps an answer the call does not accept', async () => {
    const { transport } = pagedTransport({});
    const http = new GraphHttp('https://graph.example', transport);
    await expect(
      http.expect({ method: 'GET', path: '/groups/x' }, [200], context),
    ).rejects.toMatchObject({
      code: 'GROUP_NOT_FOUND',
    });
  });
});
