import { tracingPolicyName } from '@azure/core-rest-pipeline';
import { TableClient } from '@azure/data-tables';
import { DefaultAzureCredential, type TokenCredential } from '@azure/identity';
import { QueueClient } from '@azure/storage-queue';
import { ENV, type StorageConnection } from '../config/app-config';
import { ProvisioningError } from '../domain/errors';

type Service = 'table' | 'queue';

/**
 * A Table Storage client for one table. A connection string is used as given (Azurite,
 * or an account key); an identity connection reaches
 * `https://<account>.table.core.windows.net` with DefaultAzureCredential (the managed
 * identity in Azure, `clientId` choosing a user-assigned one). Plain http is allowed only
 * for a loopback endpoint (Azurite), so a mistyped production setting cannot send
 * requests in clear text.
 *
 * @example
 * const journal = tableClient({ kind: 'connectionString', connectionString }, 'ProvisioningJournal');
 * await ensureTable(journal);
 */
export function tableClient(connection: StorageConnection, table: string): TableClient {
  const client =
    connection.kind === 'identity'
      ? new TableClient(
          serviceUrl(connection.accountName, 'table'),
          table,
          credentialFor(connection.clientId),
        )
      : TableClient.fromConnectionString(connection.connectionString, table, {
          allowInsecureConnection: isLoopbackHttp(connection.connectionString, 'table'),
        });
  // The service's storage calls are not traced (src/telemetry/untraced-calls.ts), yet the
  // SDK's tracing policy made a span for each one (a no-op span without the Azure SDK
  // instrumentation), parsing and sanitising its URL and awaiting once more: about 1 % of
  // the service's CPU in the service bench, with or without telemetry.
  client.pipeline.removePolicy({ name: tracingPolicyName });
  return client;
}

/**
 * A Queue Storage client for one queue, on the same terms as {@link tableClient}.
 *
 * @example
 * const bulk = queueClient({ kind: 'identity', accountName: 'provstore' }, 'provisioning-requests');
 */
export function queueClient(connection: StorageConnection, queue: string): QueueClient {
  if (connection.kind === 'identity') {
    return new QueueClient(
      `${serviceUrl(connection.accountName, 'queue')}/${encodeURIComponent(queue)}`,
      credentialFor(connection.clientId),
    );
  }
  if (
    !isLoopbackHttp(connection.connectionString, 'queue') &&
    usesHttp(connection.connectionString, 'queue')
  ) {
    // The queue SDK would send it; the table SDK refuses it. Refuse it for both.
    throw new ProvisioningError(
      'CONFIG_INVALID',
      'storage connection: plain http is allowed only for a loopback endpoint',
      { object: ENV.storageConnectionString },
    );
  }
  return new QueueClient(connection.connectionString, queue);
}

/** Creates the table unless it exists (idempotent: "already exists" is success). */
export async function ensureTable(client: TableClient): Promise<void> {
  await client.createTable();
}

/** Creates the queue unless it exists (idempotent). */
export async function ensureQueue(client: QueueClient): Promise<void> {
  await client.createIfNotExists();
}

function serviceUrl(accountName: string, service: Service): string {
  return `https://${accountName}.${service}.core.windows.net`;
}

/* One credential per client id: its token cache then serves every client of the process. */
const credentials = new Map<string, TokenCredential>();
function credentialFor(clientId: string | undefined): TokenCredential {
  const key = clientId ?? '';
  let credential = credentials.get(key);
  if (credential === undefined) {
    credential = new DefaultAzureCredential(
      clientId === undefined ? {} : { managedIdentityClientId: clientId },
    );
    credentials.set(key, credential);
  }
  return credential;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function isLoopbackHttp(connectionString: string, service: Service): boolean {
  const endpoint = endpointOf(connectionString, service);
  return endpoint !== undefined && isLoopbackHttpUrl(endpoint);
}

/**
 * Whether a storage URL is plain http on a loopback address (Azurite): the only place the
 * clients may send requests in clear text.
 *
 * @example
 * isLoopbackHttpUrl('http://127.0.0.1:10002/devstoreaccount1'); // true
 */
export function isLoopbackHttpUrl(endpoint: string): boolean {
  try {
    const url = new URL(endpoint);
    return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

function usesHttp(connectionString: string, service: Service): boolean {
  return endpointOf(connectionString, service)?.toLowerCase().startsWith('http:') ?? false;
}

/**
 * The endpoint a connection string gives a service: an explicit `TableEndpoint` /
 * `QueueEndpoint`, Azurite's defaults for `UseDevelopmentStorage=true`, or the public
 * endpoint built from protocol, account and suffix.
 */
function endpointOf(connectionString: string, service: Service): string | undefined {
  const parts = new Map<string, string>();
  for (const part of connectionString.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) parts.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim());
  }
  const explicit = parts.get(service === 'table' ? 'tableendpoint' : 'queueendpoint');
  if (explicit !== undefined) return explicit;
  if (parts.get('usedevelopmentstorage')?.toLowerCase() === 'true') {
    return service === 'table'
      ? 'http://127.0.0.1:10002/devstoreaccount1'
      : 'http://127.0.0.1:10001/devstoreaccount1';
  }
  const account = parts.get('accountname');
  if (account === undefined) return undefined;
  const protocol = parts.get('defaultendpointsprotocol') ?? 'https';
  const suffix = parts.get('endpointsuffix') ?? 'core.windows.net';
  return `${protocol}://${account}.${service}.${suffix}`;
}
