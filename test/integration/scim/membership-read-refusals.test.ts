import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScimConnector } from '../../../src/connectors/scim/scim-connector';
import { scimConnectorSchema } from '../../../src/connectors/scim/scim-settings';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import { startTestServer, type TestServer } from '../../support/http-server';

/*
 * A group returned without members leaves the members filter as the only way to read the
 * account's membership. A server that refuses that filter cannot tell it; one that refuses
 * the credentials (or throttles, or is down) says nothing about the filter: its own error
 * stays, so that a revoked token is seen as one (issue 14: it quarantines the connector).
 */
let server: TestServer;
let filterAnswer: { status: number; body: unknown; headers?: Record<string, string> };

const scimJson = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/scim+json', ...headers });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  server = await startTestServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/scim/v2/Groups/g-sales') {
      scimJson(res, 200, {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        id: 'g-sales',
        displayName: 'Sales',
      });
    } else if (url.pathname === '/scim/v2/Users/u-1') {
      // A user without `groups`: the server may not keep the attribute.
      scimJson(res, 200, { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], id: 'u-1' });
    } else if (url.pathname === '/scim/v2/Groups' && url.searchParams.has('filter')) {
      scimJson(res, filterAnswer.status, filterAnswer.body, filterAnswer.headers);
    } else scimJson(res, 404, { status: '404' });
  });
});

/**
 * A new connector for each case: whether a server evaluates the members filter is decided
 * once per connector and worker, at its first membership read.
 */
async function readWithNewConnector() {
  const connector = new ScimConnector(
    scimConnectorSchema.parse({
      name: 'refusals',
      kind: 'scim',
      baseUrl: server.url,
      auth: { type: 'none' },
      maxRetries: 0,
    }),
    { secrets: new LocalSecretStore() },
  );
  try {
    return await connector.readMemberships(account, ['g-sales']);
  } finally {
    await connector.close();
  }
}

afterAll(async () => {
  await server.close();
});

const account = { id: 'u-1', accountId: 'ada', enabled: true };
const error = (status: string, scimType?: string) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
  status,
  ...(scimType === undefined ? {} : { scimType }),
  detail: 'refused',
});

describe('reading a membership through the members filter', () => {
  it('says it could not tell the membership when the server refuses the filter', async () => {
    filterAnswer = { status: 400, body: error('400', 'invalidFilter') };
    await expect(readWithNewConnector()).resolves.toMatchObject({
      groupIds: [],
      unproven: ['g-sales'],
      notices: [expect.stringContaining('could not tell whether the account is a member')],
    });
  });

  it('keeps a refusal of the credentials what it is', async () => {
    filterAnswer = {
      status: 401,
      body: error('401'),
      headers: { 'www-authenticate': 'Bearer realm="scim"' },
    };
    await expect(readWithNewConnector()).rejects.toMatchObject({
      code: 'TARGET_AUTH_FAILED',
      status: 401,
    });
  });
});
