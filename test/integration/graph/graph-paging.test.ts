import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GraphHttp } from '../../../src/connectors/graph/graph-http';
import type { GraphErrorContext } from '../../../src/connectors/graph/graph-error-mapper';
import { EMPTY_PAGES_IN_A_ROW_LIMIT } from '../../../src/connectors/graph/paging-guard';
import { HttpTransport } from '../../../src/connectors/http/transport';
import { generateLoopbackCertificate } from '../../../src/sandbox/graph/loopback-certificate';
import {
  startLoopbackHttpsServer,
  type LoopbackHttpsServer,
} from '../../../src/sandbox/graph/loopback-https-server';
import type { ProvisioningError } from '../../../src/domain/errors';

/** The page `/v1.0/groups?page=n` answers: its items and the page it links to, if any. */
let script: (page: number) => { items: number; next?: number };
let server: LoopbackHttpsServer;
let ca: string;
let pagesServed: number[] = [];

const root = () => `https://127.0.0.1:${server.port}`;

beforeAll(async () => {
  const certificate = await generateLoopbackCertificate();
  ca = certificate.cert;
  server = await startLoopbackHttpsServer(certificate, async (request) => {
    const page = Number(new URL(request.url, 'https://x').searchParams.get('page') ?? '1');
    pagesServed.push(page);
    const { items, next } = script(page);
    return {
      status: 200,
      body: {
        value: Array.from({ length: items }, (_, i) => ({ id: `g${page}-${i}` })),
        ...(next === undefined ? {} : { '@odata.nextLink': `${root()}/v1.0/groups?page=${next}` }),
      },
    };
  });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  pagesServed = [];
});

const context: GraphErrorContext = {
  connector: 'entra',
  task: 'readGroups',
  subject: 'the group catalogue',
  object: 'entra',
  notFound: 'GRAPH_REQUEST_REJECTED',
};

async function readAll(): Promise<{ ids: string[] } | { error: ProvisioningError }> {
  const transport = new HttpTransport({
    target: 'entra',
    timeoutMs: 5_000,
    maxRetries: 0,
    concurrency: 2,
    ca,
  });
  try {
    const http = new GraphHttp(root(), transport);
    const items = await http.list({ method: 'GET', path: '/groups', query: { page: 1 } }, context);
    return { ids: items.map((item) => String(item.id)) };
  } catch (error) {
    return { error: error as ProvisioningError };
  } finally {
    await transport.close();
  }
}

describe('GraphHttp.pages against a server that never ends the list', () => {
  it('stops after 100 empty pages in a row that keep linking on, naming the read', async () => {
    script = (page) => ({ items: 0, next: page + 1 });
    const outcome = await readAll();
    expect(outcome).toMatchObject({ error: { code: 'TARGET_RESPONSE_INVALID', object: 'entra' } });
    const { error } = outcome as { error: ProvisioningError };
    expect(error.message).toContain('connector "entra": reading the group catalogue');
    expect(error.message).toContain(`${EMPTY_PAGES_IN_A_ROW_LIMIT} empty pages in a row`);
    expect(pagesServed).toHaveLength(EMPTY_PAGES_IN_A_ROW_LIMIT);
  });

  it('stops at a nextLink that leads back to a page already read', async () => {
    script = (page) => ({ items: 2, next: page === 3 ? 2 : page + 1 });
    const outcome = await readAll();
    expect(outcome).toMatchObject({ error: { code: 'TARGET_RESPONSE_INVALID' } });
    const { error } = outcome as { error: ProvisioningError };
    expect(error.message).toContain('connector "entra": reading the group catalogue');
    expect(error.message).toContain('leads back to a page already read');
    expect(error.message).toContain(`${root()}/v1.0/groups?page=2`);
    expect(pagesServed).toEqual([1, 2, 3]);
  });

  it('reads a long list whose empty pages come in shorter runs to its end', async () => {
    // Runs of 99 empty pages between pages with items: Graph may scan on; the list ends.
    const run = EMPTY_PAGES_IN_A_ROW_LIMIT - 1;
    script = (page) => ({
      items: page % (run + 1) === 0 ? 1 : 0,
      ...(page < 3 * (run + 1) ? { next: page + 1 } : {}),
    });
    const outcome = await readAll();
    expect(outcome).toEqual({ ids: ['g100-0', 'g200-0', 'g300-0'] });
    expect(pagesServed).toHaveLength(300);
  });
});
