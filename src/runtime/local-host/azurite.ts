import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running in-process Azurite (tables and queues) on loopback. */
export interface LocalAzurite {
  /** Points at the actual ephemeral ports, with the well-known development account. */
  connectionString: string;
  /** Stops both servers and frees every handle (sockets, timers). */
  close(): Promise<void>;
}

/**
 * Azurite's development account: public, documented and identical on every machine
 * (https://learn.microsoft.com/azure/storage/common/storage-use-azurite#well-known-storage-account-and-key).
 */
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_ACCOUNT_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const HOST = '127.0.0.1';

interface AzuriteServer {
  readonly httpServer: Server;
  start(): Promise<void>;
  close(): Promise<void>;
}
type ServerClass = new (configuration: object) => AzuriteServer;
type ConfigurationClass = new (...positional: unknown[]) => object;
interface DefaultExport<T> {
  default: T;
}

/*
 * Azurite has no public in-process API and ships no typings: these are the classes its
 * own CLI composes (azurite/dist/src/azurite.js), loaded lazily so production code that
 * never starts a local host never loads Azurite.
 */
function loadAzurite() {
  const load = createRequire(__filename);
  const dist = 'azurite/dist/src';
  lookUpRowKeyFirst(createRequire(load.resolve('azurite/package.json')));
  return {
    QueueServer: (load(`${dist}/queue/QueueServer`) as DefaultExport<ServerClass>).default,
    QueueConfiguration: (
      load(`${dist}/queue/QueueConfiguration`) as DefaultExport<ConfigurationClass>
    ).default,
    TableServer: (load(`${dist}/table/TableServer`) as DefaultExport<ServerClass>).default,
    TableConfiguration: (
      load(`${dist}/table/TableConfiguration`) as DefaultExport<ConfigurationClass>
    ).default,
    memoryExtents: load(`${dist}/common/persistence/MemoryExtentStore`) as {
      MemoryExtentChunkStore: new (sizeLimit: number) => object;
      DEFAULT_EXTENT_MEMORY_LIMIT: number;
    },
    configureLogger: (load(`${dist}/common/Logger`) as { configLogger: (enable: boolean) => void })
      .configLogger,
    telemetry: (
      load(`${dist}/common/Telemetry`) as {
        AzuriteTelemetryClient: { init: (location: string, enable: boolean, env: unknown) => void };
      }
    ).AzuriteTelemetryClient,
  };
}

interface LokiCollectionPrototype {
  findOne: (this: unknown, query: unknown) => unknown;
  /** Set once the lookup below is installed (Azurite's modules are shared by the process). */
  pointLookupByRowKey?: true;
}

/**
 * Azurite finds an entity with `findOne({ PartitionKey, RowKey })` (every read, insert and
 * upsert). LokiJS answers a query on two properties through the binary index of the first
 * one and then scans what it found: every row of the partition, so each write into a
 * partition of 20,000 catalogue roles compared 20,000 rows and a large import slowed down
 * quadratically. Asking for the row key first (unique within a partition, also indexed)
 * gives the same row after a binary search. Same answer, same semantics; only the order of
 * the two conditions changes.
 */
function lookUpRowKeyFirst(load: NodeRequire): void {
  const loki = load('lokijs') as { Collection: { prototype: LokiCollectionPrototype } };
  const prototype = loki.Collection.prototype;
  if (prototype.pointLookupByRowKey === true) return;
  const findOne = prototype.findOne;
  prototype.findOne = function (this: unknown, query: unknown) {
    if (isPointQuery(query)) {
      return findOne.call(this, { RowKey: query.RowKey, PartitionKey: query.PartitionKey });
    }
    return findOne.call(this, query);
  };
  prototype.pointLookupByRowKey = true;
}

function isPointQuery(query: unknown): query is { PartitionKey: string; RowKey: string } {
  if (typeof query !== 'object' || query === null) return false;
  const keys = Object.keys(query);
  const { PartitionKey, RowKey } = query as Record<string, unknown>;
  return keys.length === 2 && typeof PartitionKey === 'string' && typeof RowKey === 'string';
}

/**
 * Starts Azurite's Table and Queue services in this process on 127.0.0.1 and ephemeral
 * ports, with in-memory persistence, no telemetry, no debug or access log and no API
 * version check (so newer SDKs work). Each call gets its own data: the queue extents live
 * in a chunk store of their own rather than Azurite's process-wide default.
 *
 * @example
 * const azurite = await startAzurite();
 * const store = new TableJournalStore(tableClient({ kind: 'connectionString', connectionString: azurite.connectionString }, 'Journal'));
 * await azurite.close();
 */
export async function startAzurite(): Promise<LocalAzurite> {
  const azurite = loadAzurite();
  azurite.configureLogger(false);
  // Telemetry is only sent once init() enabled it; pinning it off guards against a
  // CLI run in the same process having switched it on.
  azurite.telemetry.init('', false, undefined);

  const queueConfig = new azurite.QueueConfiguration(
    HOST,
    0,
    undefined, // keepAliveTimeout: default
    'queue-metadata.json', // metadataDBPath: a name only, nothing is written in memory mode
    'queue-extents.json', // extentDBPath
    [], // persistencePathArray: unused in memory mode
    false, // enableAccessLog
    undefined, // accessLogWriteStream
    false, // enableDebugLog
    undefined, // debugLogFilePath
    false, // loose
    true, // skipApiVersionCheck
    '', // cert
    '', // key
    '', // pwd
    undefined, // oauth
    false, // disableProductStyleUrl
    true, // isMemoryPersistence
    new azurite.memoryExtents.MemoryExtentChunkStore(
      azurite.memoryExtents.DEFAULT_EXTENT_MEMORY_LIMIT,
    ),
  );
  // TableConfiguration's positional order differs from Queue's (debug log before access log).
  const tableConfig = new azurite.TableConfiguration(
    HOST,
    0,
    undefined, // keepAliveTimeout: default
    'table-metadata.json', // metadataDBPath
    false, // enableDebugLog
    false, // enableAccessLog
    undefined, // accessLogWriteStream
    undefined, // debugLogFilePath
    false, // loose
    true, // skipApiVersionCheck
    '', // cert
    '', // key
    '', // pwd
    undefined, // oauth
    false, // disableProductStyleUrl
    true, // isMemoryPersistence
  );

  const queue = new azurite.QueueServer(queueConfig);
  const table = new azurite.TableServer(tableConfig);
  const started: AzuriteServer[] = [];
  try {
    for (const server of [queue, table]) {
      await server.start();
      started.push(server);
    }
  } catch (error) {
    await Promise.allSettled(started.map(closeServer));
    throw error;
  }

  const queuePort = (queue.httpServer.address() as AddressInfo).port;
  const tablePort = (table.httpServer.address() as AddressInfo).port;
  const connectionString = [
    'DefaultEndpointsProtocol=http',
    `AccountName=${DEV_ACCOUNT}`,
    `AccountKey=${DEV_ACCOUNT_KEY}`,
    `TableEndpoint=http://${HOST}:${tablePort}/${DEV_ACCOUNT}`,
    `QueueEndpoint=http://${HOST}:${queuePort}/${DEV_ACCOUNT}`,
  ].join(';');

  let closing: Promise<void> | undefined;
  return {
    connectionString,
    close: () => {
      closing ??= Promise.all([closeServer(queue), closeServer(table)]).then(() => undefined);
      return closing;
    },
  };
}

/**
 * Azurite's close() stops accepting requests but returns before the socket is closed, and
 * leaves idle keep-alive connections of SDK clients open: wait for the real 'close' and
 * drop those connections so the process can exit.
 */
async function closeServer(server: AzuriteServer): Promise<void> {
  const { httpServer } = server;
  const closed = httpServer.listening
    ? new Promise<void>((resolve) => httpServer.once('close', () => resolve()))
    : Promise.resolve();
  await server.close();
  httpServer.closeAllConnections();
  await closed;
}
