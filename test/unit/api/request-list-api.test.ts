import { HttpRequest, InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../../src/api/api-deps';
import { listRequestsHandler } from '../../../src/api/request-list-api';
import type {
  RequestIndexEntry,
  RequestIndexQuery,
  RequestIndexStore,
} from '../../../src/store/request-index';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import type { OrchestrationState } from '../../../src/workflows/orchestration-client';

// A request whose orchestration crashed (Failed, Terminated) never writes its end to the
// index: the list must still say how it ended. The store is a stand-in here (its own
// behaviour is tested against Azurite); what is tested is how the list reads it.

const entry = (requestId: string, status: RequestIndexEntry['status']): RequestIndexEntry => ({
  requestId,
  connector: 'hr',
  accountId: 'jane',
  actions: ['lock'],
  status,
  source: 'http',
  receivedAt: '2026-11-22T08:00:00.000Z',
});

const stored = [entry('crashed', 'pending'), entry('done', 'succeeded'), entry('busy', 'pending')];

const index: RequestIndexStore = {
  add: async () => undefined,
  addTogether: async () => undefined,
  recordEnd: async () => true,
  query: async (query: RequestIndexQuery) => ({
    entries: stored.filter(
      (e) => query.statuses === undefined || query.statuses.includes(e.status),
    ),
  }),
};

function state(id: string, runtimeStatus: OrchestrationState['runtimeStatus']): OrchestrationState {
  return {
    instanceId: `request-${id}`,
    name: 'provisioningRequest',
    runtimeStatus,
    input: {
      requestId: id,
      connector: 'hr',
      account: { accountId: 'jane' },
      actions: [{ type: 'lock' }],
    },
    output: null,
    customStatus:
      runtimeStatus === 'Running'
        ? {
            requestId: id,
            connector: 'hr',
            accountId: 'jane',
            status: 'running',
            steps: [{ index: 0, action: 'lock', state: 'running', changes: [], notices: [] }],
          }
        : null,
    createdTime: '2026-11-22T08:00:00.000Z',
    lastUpdatedTime: '2026-11-22T08:00:01.000Z',
  };
}

const deps: ApiDeps = {
  services: async () => ({ requests: index }) as unknown as WorkflowServices,
  orchestrations: () => ({
    startNew: async () => 'exists',
    getStatus: async (instanceId) =>
      instanceId === 'request-crashed'
        ? state('crashed', 'Failed')
        : instanceId === 'request-busy'
          ? state('busy', 'Running')
          : undefined,
  }),
  now: () => new Date(),
};

async function list(query: string) {
  const answer = await listRequestsHandler(deps)(
    new HttpRequest({ method: 'GET', url: `http://127.0.0.1/api/requests${query}` }),
    new InvocationContext(),
  );
  return (answer.jsonBody as { requests: RequestIndexEntry[] }).requests.map(
    (r) => `${r.requestId}:${r.status}`,
  );
}

describe('GET /api/requests', () => {
  it('asks the orchestration how a request stored as pending is now', async () => {
    expect(await list('')).toEqual(['crashed:failed', 'done:succeeded', 'busy:running']);
  });

  it('finds a crashed request under "failed", and a running one under "running"', async () => {
    expect(await list('?status=failed')).toEqual(['crashed:failed']);
    expect(await list('?status=running')).toEqual(['busy:running']);
    expect(await list('?status=pending')).toEqual([]);
    expect(await list('?status=succeeded')).toEqual(['done:succeeded']);
  });
});
