import { mkdir, open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { lookUpRowKeyFirst, type LokiDatabase } from './azurite-patches';
import { lightenQueueExtents, lightenQueueMessages } from './azurite-queue-store';

/** A running in-process Azurite (tables and queues) on loopback. */
export interface LocalAzurite {
  /** Points at the actual ephemeral ports, with the well-known development account. */
  connectionString: string;
  /**
   * Resolves once every table write Azurite has answered so far is on disk: it saves its
   * tables every 5 s by itself, so a write it answered may otherwise be lost with the
   * process. Immediate in memory.
   */
  flush(): Promise<void>;
  /** Stops both servers and frees every handle (sockets, timers); on disk, saves first. */
  close(): Promise<void>;
}

export interface AzuriteOptions {
  /**
   * A folder to keep the data in (Azurite's `--location`): tables and queues are read from
   * it at start and saved to it. Default: in memory, lost at close.
   */
  location?: string;
}

/** Azurite's file names inside its location (azurite/dist/src/{queue,table}/utils/constants). */
const FILES = {
  table: '__azurite_db_table__.json',
  queue: '__azurite_db_queue__.json',
  queueExtents: '__azurite_db_queue_extent__.json',
  queueData: '__queuestorage__',
} as const;

/**
 * Azurite's development account: public, documented and identical on every machine
 * (https://learn.microsoft.com/azure/storage/common/storage-use-azurite#well-known-storage-account-and-key).
 */
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_ACCOUNT_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const HOST = '127.0.0.1';

/** The LokiJS database under an Azurite service (what flush() and the patches use). */
interface AzuriteDatabase extends LokiDatabase {
  saveDatabase(callback: (error?: unknown) => void): void;
}

interface AzuriteServer {
  readonly httpServer: Server;
  readonly metadataStore?: { db?: AzuriteDatabase };
  /** The queue service's extents (where its message bodies are). */
  readonly extentMetadataStore?: { db?: AzuriteDatabase };
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

/**
 * Starts Azurite's Table and Queue services in this process on 127.0.0.1 and ephemeral
 * ports, in memory or (with `location`) on disk, with no telemetry, no debug or access log
 * and no API version check (so newer SDKs work). In memory, each call gets its own data:
 * the queue extents live in a chunk store of their own rather than Azurite's process-wide
 * default. Its LokiJS store runs with narrow patches that cut its CPU and keep its answers
 * (azurite-patches.ts, azurite-queue-store.ts).
 *
 * @example
 * const azurite = await startAzurite();
 * const store = new TableJournalStore(tableClient({ kind: 'connectionString', connectionString: azurite.connectionString }, 'Journal'));
 * await azurite.close();
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<LocalAzurite> {
  const { location } = options;
  const inMemory = location === undefined;
  if (!inMemory) await mkdir(location, { recursive: true });
  const at = (file: string) => (inMemory ? file : join(location, file));
  const azurite = loadAzurite();
  azurite.configureLogger(false);
  // Telemetry is only sent once init() enabled it; pinning it off guards against a
  // CLI run in the same process having switched it on.
  azurite.telemetry.init('', false, undefined);

  const queueConfig = new azurite.QueueConfiguration(
    HOST,
    0,
    undefined, // keepAliveTimeout: default
    at(FILES.queue), // metadataDBPath: a name only in memory, nothing is written
    at(FILES.queueExtents), // extentDBPath
    inMemory
      ? []
      : [{ locationId: 'Default', locationPath: at(FILES.queueData), maxConcurrency: 1 }],
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
    inMemory, // isMemoryPersistence
    inMemory
      ? new azurite.memoryExtents.MemoryExtentChunkStore(
          azurite.memoryExtents.DEFAULT_EXTENT_MEMORY_LIMIT,
        )
      : undefined,
  );
  // TableConfiguration's positional order differs from Queue's (debug log before access log).
  const tableConfig = new azurite.TableConfiguration(
    HOST,
    0,
    undefined, // keepAliveTimeout: default
    at(FILES.table), // metadataDBPath
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
    inMemory, // isMemoryPersistence
  );

  const queue = new azurite.QueueServer(queueConfig);
  const table = new azurite.TableServer(tableConfig);
  const started: AzuriteServer[] = [];
  try {
    for (const server of [queue, table]) {
      await server.start();
      started.push(server);
    }
    const queueDb = queue.metadataStore?.db;
    const extentDb = queue.extentMetadataStore?.db;
    if (queueDb === undefined || extentDb === undefined) {
      throw new Error('Azurite queue service has no database');
    }
    lightenQueueMessages(queueDb);
    lightenQueueExtents(extentDb);
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
    flush: () => (inMemory ? Promise.resolve() : saveTables(table, at(FILES.table), location)),
    close: () => {
      closing ??= Promise.all([closeServer(queue), closeServer(table)]).then(() => undefined);
      return closing;
    },
  };
}

/**
 * Saves the table database now and waits until it is on disk. LokiJS serialises the whole
 * database at once (a consistent snapshot), writes it beside the file and renames it over;
 * a save asked for while one runs is made after it, so it holds every write answered
 * before the call. Then the file and its folder are synced: the rename survives a crash of
 * the machine too.
 */
async function saveTables(table: AzuriteServer, file: string, folder: string): Promise<void> {
  const db = table.metadataStore?.db;
  if (db === undefined) throw new Error('Azurite table service has no database to save');
  await new Promise<void>((resolve, reject) => {
    db.saveDatabase((error) =>
      error === undefined || error === null
        ? resolve()
        : reject(error instanceof Error ? error : new Error('Azurite could not save its tables')),
    );
  });
  for (const path of [file, folder]) {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
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
