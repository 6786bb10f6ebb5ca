import { createDefaultHttpClient, type HttpClient } from '@azure/core-rest-pipeline';

let httpClient: HttpClient | undefined;

/**
 * The HTTP client of the storage calls the service sends itself (transactions and inserts)
 * through the SDK clients' pipelines: one per process, so that they share
 * its keep-alive connections.
 */
export function storageHttpClient(): HttpClient {
  httpClient ??= createDefaultHttpClient();
  return httpClient;
}
