import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { z } from 'zod';
import type { RequestStatus } from '../domain/request-report';
import type { RequestIndexEntry } from '../store/request-index';
import { requestInstanceId } from '../workflows/names';
import type { OrchestrationClient } from '../workflows/orchestration-client';
import type { ApiDeps } from './api-deps';
import { problem } from './http-problem';
import { describeProblems } from './request-schema';
import { requestView } from './requests-api';

const STATUSES = ['pending', 'running', 'succeeded', 'failed'] as const;

const listQuery = z.strictObject({
  connector: z.string().min(1).max(63).optional(),
  accountId: z.string().min(1).max(256).optional(),
  status: z.enum(STATUSES, { error: `must be one of ${STATUSES.join(', ')}` }).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  continuationToken: z.string().min(1).max(4096).optional(),
});

/** Index pages read for one answer at most: a narrow status filter answers a short page sooner. */
const MAX_ROUNDS = 5;

/**
 * `GET /api/requests`: provisioning requests, newest first, filtered by connector, account
 * and status, paged. The index knows a request's end; the state of one that has not ended is
 * asked of its orchestration, so `pending` and `running` are live. A page may hold fewer than
 * `limit` requests and still carry a continuationToken: read on while there is one.
 */
export function listRequestsHandler(deps: ApiDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const parsed = listQuery.safeParse(Object.fromEntries(request.query.entries()));
    if (!parsed.success) {
      return problem(400, 'REQUEST_INVALID', 'invalid request list query', {
        problems: describeProblems(parsed.error),
      });
    }
    const { status: wanted, limit = 50, continuationToken: first, ...filters } = parsed.data;
    const services = await deps.services();
    const orchestrations = deps.orchestrations(context);
    const requests: RequestIndexEntry[] = [];
    let continuationToken = first;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const page = await services.requests.query({
        ...filters,
        ...(wanted === undefined ? {} : { statuses: storedStatuses(wanted) }),
        limit: limit - requests.length,
        ...(continuationToken === undefined ? {} : { continuationToken }),
      });
      const live = await Promise.all(
        page.entries.map((entry) => withLiveStatus(entry, orchestrations)),
      );
      requests.push(...live.filter((entry) => wanted === undefined || entry.status === wanted));
      continuationToken = page.continuationToken;
      if (requests.length >= limit || continuationToken === undefined) break;
    }
    return {
      status: 200,
      jsonBody: { requests, ...(continuationToken === undefined ? {} : { continuationToken }) },
    };
  };
}

/**
 * The stored statuses that may be `wanted` now: an ended request is stored with its end;
 * one stored `pending` may have started, or ended without its end being indexed yet.
 */
function storedStatuses(wanted: RequestStatus): RequestStatus[] {
  return wanted === 'succeeded' || wanted === 'failed' ? [wanted, 'pending'] : ['pending'];
}

async function withLiveStatus(
  entry: RequestIndexEntry,
  orchestrations: OrchestrationClient,
): Promise<RequestIndexEntry> {
  if (entry.status !== 'pending') return entry;
  const state = await orchestrations.getStatus(requestInstanceId(entry.requestId));
  if (state === undefined) return entry;
  const view = requestView(state);
  return {
    ...entry,
    status: view.status,
    ...(view.finishedAt === undefined ? {} : { finishedAt: view.finishedAt }),
  };
}
