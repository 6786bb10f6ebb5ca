import { useInstrumenter, type Instrumenter, type TracingContext } from '@azure/core-tracing';
import { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../../src/store/storage-clients';
import { submitTransaction } from '../../../src/store/table-transaction';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/** The spans the Azure SDK starts, by the package that starts them. */
const started: { name: string; packageName: string }[] = [];

/** A context that holds nothing: the recording instrumenter needs no parent. */
const emptyContext: TracingContext = {
  getValue: () => undefined,
  setValue: () => emptyContext,
  deleteValue: () => emptyContext,
};

/** Records every span the Azure SDK starts, as the Azure SDK's OpenTelemetry instrumentation would make them. */
const recording: Instrumenter = {
  startSpan(name, options) {
    started.push({ name, packageName: options.packageName });
    return {
      span: {
        end: () => undefined,
        isRecording: () => true,
        recordException: () => undefined,
        setAttribute: () => undefined,
        setStatus: () => undefined,
        addEvent: () => undefined,
      },
      tracingContext: emptyContext,
    };
  },
  withContext: (_context, callback, ...args) => callback(...args),
  parseTraceparentHeader: () => undefined,
  createRequestHeaders: () => ({}),
};

let storage: TestStorage;

beforeAll(async () => {
  storage = await startTestStorage();
  useInstrumenter(recording);
}, 60_000);

afterAll(async () => {
  await storage.close();
});

/** The HTTP spans of the pipeline's tracing policy. */
const httpSpans = () => started.filter((span) => span.packageName === '@azure/core-rest-pipeline');

describe("the service's table clients", () => {
  it('send their storage calls without an HTTP span, even with Azure SDK tracing on', async () => {
    const client = tableClient(storage.connection, 'Untraced');
    await client.createTable();
    started.length = 0;
    await client.createEntity({ partitionKey: 'p', rowKey: 'a', n: 1 });
    await submitTransaction(client, [
      ['create', { partitionKey: 'p', rowKey: 'b', n: 2 }],
      ['update', { partitionKey: 'p', rowKey: 'a', n: 3 }, 'Replace'],
    ]);
    expect((await client.getEntity<{ n: number }>('p', 'a')).n).toBe(3);
    expect((await client.getEntity<{ n: number }>('p', 'b')).n).toBe(2);
    expect(httpSpans()).toEqual([]);
  });

  it("leave the SDK's own clients as they are (the recording instrumenter sees their HTTP calls)", async () => {
    if (storage.connection.kind !== 'connectionString') throw new Error('Azurite gives a string');
    const plain = TableClient.fromConnectionString(storage.connection.connectionString, 'Plain', {
      allowInsecureConnection: true,
    });
    await plain.createTable();
    started.length = 0;
    await plain.createEntity({ partitionKey: 'p', rowKey: 'a' });
    expect(httpSpans().map((span) => span.name)).toEqual(['HTTP POST']);
  });
});
