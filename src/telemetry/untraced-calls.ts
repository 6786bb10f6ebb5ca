import type { RequestOptions } from 'node:http';

/** Azure Storage's Table, Queue and Blob endpoints, in the public and the sovereign clouds. */
const STORAGE_HOST =
  /\.(table|queue|blob)\.core\.(windows\.net|chinacloudapi\.cn|usgovcloudapi\.net)$/i;

/**
 * Whether an outgoing HTTP call is one of the service's own storage calls (journal, leases,
 * request index, bulk queue), which are not traced: about a dozen per request, they would
 * triple the spans of a request and the telemetry's CPU (issue 19), and the storage
 * account's own metrics in Azure Monitor (transactions, latency, throttling) already answer
 * for them. Calls to the targets, Key Vault and Entra ID are traced.
 *
 * @example
 * isStorageCall({ hostname: 'provstore.table.core.windows.net' }); // true
 * isStorageCall({ hostname: 'graph.microsoft.com' }); // false
 */
export function isStorageCall(request: Pick<RequestOptions, 'host' | 'hostname'>): boolean {
  const host = (request.hostname ?? request.host ?? '').replace(/:\d+$/, '');
  return STORAGE_HOST.test(host);
}
