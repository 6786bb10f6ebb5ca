import { GraphRequestError } from './graph-error.js';
import type { GraphReply } from './graph-error.js';

/** One sub-request of a JSON batch (graph-behaviour.md: Batching). */
export interface BatchSubRequest {
  id: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  dependsOn: string[];
}

export interface BatchSubResponse {
  id: string;
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

const MAX_BATCH_REQUESTS = 20;

function invalidBatch(message: string): GraphRequestError {
  return new GraphRequestError(400, 'BadRequest', message);
}

/**
 * Runs `POST /$batch`: up to 20 sub-requests with unique ids, relative urls, and
 * `dependsOn` ordering; a sub-request whose dependency failed gets 424. Each
 * sub-request runs through `run` (throttling and permissions apply to each one).
 */
export function runBatch(body: unknown, run: (request: BatchSubRequest) => GraphReply): GraphReply {
  const requests = parseBatch(body);
  const byId = new Map(requests.map((request) => [request.id, request]));
  const results = new Map<string, BatchSubResponse>();
  const visiting = new Set<string>();

  const execute = (request: BatchSubRequest): BatchSubResponse => {
    const done = results.get(request.id);
    if (done !== undefined) return done;
    if (visiting.has(request.id))
      throw invalidBatch('The dependsOn references of the batch form a cycle.');
    visiting.add(request.id);
    const dependencies = request.dependsOn.map((id) => execute(byId.get(id)!));
    let response: BatchSubResponse;
    if (dependencies.some((d) => d.status >= 400)) {
      response = {
        id: request.id,
        status: 424,
        headers: { 'Content-Type': 'application/json' },
        body: { error: { code: 'FailedDependency', message: 'Failed dependency.' } },
      };
    } else {
      const reply = run(request);
      response = { id: request.id, status: reply.status, headers: reply.headers ?? {} };
      if (reply.body !== undefined) response.body = reply.body;
    }
    results.set(request.id, response);
    return response;
  };

  const responses = requests.map(execute);
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body: { responses } };
}

function parseBatch(body: unknown): BatchSubRequest[] {
  const raw = (body as { requests?: unknown } | null | undefined)?.requests;
  if (!Array.isArray(raw) || raw.length === 0) throw invalidBatch('Invalid batch payload format.');
  if (raw.length > MAX_BATCH_REQUESTS) {
    throw invalidBatch(`The number of batch requests exceeds the limit of ${MAX_BATCH_REQUESTS}.`);
  }
  const requests = raw.map(parseSubRequest);
  const ids = new Set<string>();
  for (const request of requests) {
    if (ids.has(request.id)) throw invalidBatch(`Batch request id '${request.id}' is not unique.`);
    ids.add(request.id);
  }
  for (const request of requests) {
    for (const dependency of request.dependsOn) {
      if (!ids.has(dependency)) {
        throw invalidBatch(
          `Request id '${request.id}' depends on '${dependency}', which is not in the batch.`,
        );
      }
    }
  }
  return requests;
}

function parseSubRequest(raw: unknown): BatchSubRequest {
  const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const { id, method, url } = entry;
  if (
    typeof id !== 'string' ||
    id === '' ||
    typeof method !== 'string' ||
    typeof url !== 'string'
  ) {
    throw invalidBatch('Each batch request needs a string id, method and url.');
  }
  if (/^[a-z]+:\/\//i.test(url))
    throw invalidBatch(`Request id '${id}': the url must be relative.`);
  const headers = isStringRecord(entry['headers']) ? entry['headers'] : {};
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  if (entry['body'] !== undefined && !hasContentType) {
    throw invalidBatch(`Write request id : ${id} does not contain Content-Type header or body.`);
  }
  const dependsOn = Array.isArray(entry['dependsOn'])
    ? entry['dependsOn'].filter((d): d is string => typeof d === 'string')
    : [];
  if (url.replace(/^\//, '').startsWith('$batch'))
    throw invalidBatch('A batch cannot contain a batch.');
  return { id, method: method.toUpperCase(), url, headers, body: entry['body'], dependsOn };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}
