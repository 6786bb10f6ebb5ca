import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

/** Storage calls of this process by service, and by kind of call (method and resource). */
export interface StorageCallCounts {
  table: number;
  queue: number;
  byKind: Record<string, number>;
}

/**
 * Counts the HTTP requests this process sends to a storage account (every Table and Queue
 * call is one request, a transaction of up to 100 rows included), from Node's own
 * `http.client.request.start` channel: the stores stay as they are in production.
 *
 * @example
 * const calls = countStorageCalls(connectionString);
 * // ... run requests ...
 * calls.stop(); calls.counts.table;
 */
export function countStorageCalls(connectionString: string): {
  counts: StorageCallCounts;
  reset(): void;
  stop(): void;
} {
  const endpoints = new Map<string, 'table' | 'queue'>();
  for (const part of connectionString.split(';')) {
    const [name, value] = part.split('=', 2) as [string, string | undefined];
    if (value === undefined) continue;
    if (name === 'TableEndpoint') endpoints.set(new URL(value).host, 'table');
    if (name === 'QueueEndpoint') endpoints.set(new URL(value).host, 'queue');
  }
  const counts: StorageCallCounts = { table: 0, queue: 0, byKind: {} };
  const onStart = (message: unknown) => {
    const request = (message as { request: ClientRequest }).request;
    const service = endpoints.get(String(request.getHeader('host')));
    if (service === undefined) return;
    counts[service] += 1;
    const kind = `${service} ${request.method} ${resourceOf(request.path, service)}`;
    counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
  };
  subscribe('http.client.request.start', onStart);
  return {
    counts,
    reset: () => {
      counts.table = 0;
      counts.queue = 0;
      counts.byKind = {};
    },
    stop: () => unsubscribe('http.client.request.start', onStart),
  };
}

/** `AccountLinks`, `$batch`, `provisioning-requests/messages`: the resource without keys. */
function resourceOf(path: string, service: 'table' | 'queue'): string {
  const segments = decodeURIComponent(path.split('?')[0] ?? '')
    .split('/')
    .filter((s) => s !== '');
  const resource = segments[1] ?? '';
  if (service === 'queue') return segments.slice(1, 3).join('/');
  return resource.replace(/\(.*\)$/, '');
}
