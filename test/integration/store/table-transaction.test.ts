import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TableClient, type TransactionAction } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageFailure } from '../../../src/store/storage-failure';
import { submitTransaction } from '../../../src/store/table-transaction';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let ours: TableClient;
let theirs: TableClient;

function client(table: string): TableClient {
  if (storage.connection.kind !== 'connectionString') throw new Error('Azurite gives a string');
  return TableClient.fromConnectionString(storage.connection.connectionString, table, {
    allowInsecureConnection: true,
    retryOptions: { maxRetries: 0 },
  });
}

/** Every row of a table without the service's own columns, in key order. */
async function rows(table: TableClient): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const row of table.listEntities({ queryOptions: { filter: '' } })) {
    all.push(
      Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'etag' && k !== 'timestamp')),
    );
  }
  return all;
}

/**
 * A listener on loopback in the storage's place, answering with `handle`, and a client of
 * table `table` that sends to it.
 */
async function loopbackStorage(
  table: string,
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ client: TableClient; close(): Promise<void> }> {
  const listener = createServer((request, response) => {
    request.resume();
    handle(request, response);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  return {
    client: TableClient.fromConnectionString(
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`,
      table,
      { allowInsecureConnection: true, retryOptions: { maxRetries: 0 } },
    ),
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}

beforeAll(async () => {
  storage = await startTestStorage();
  ours = client('Ours');
  theirs = client('Theirs');
  await Promise.all([ours.createTable(), theirs.createTable()]);
});

afterAll(async () => {
  await storage.close();
});

// Keys with what the address must escape: quotes, spaces, percent escapes, non-ASCII.
const AWKWARD = "o'brien %2F é ü";

describe('submitTransaction', () => {
  it('writes what the SDK writes for every kind of action, and answers an ETag per action', async () => {
    const seed: TransactionAction[] = [
      ['create', { partitionKey: AWKWARD, rowKey: 'to-update', n: 1 }],
      ['create', { partitionKey: AWKWARD, rowKey: 'to-merge', kept: 'yes', n: 1 }],
      ['create', { partitionKey: AWKWARD, rowKey: 'to-delete' }],
    ];
    await submitTransaction(ours, seed);
    await theirs.submitTransaction(seed);
    const current = async (table: TableClient) =>
      (await table.getEntity(AWKWARD, 'to-update')).etag;

    const actionsFor = (etag: string): TransactionAction[] => [
      [
        'create',
        {
          partitionKey: AWKWARD,
          rowKey: `new ${AWKWARD}`,
          text: 'line one\r\n--changeset_not-a-boundary {"x": 1}',
          int: 42,
          double: 1.5,
          big: 12345678901234n,
          flag: false,
          when: new Date('2026-11-24T10:00:00.000Z'),
          bytes: new Uint8Array([1, 2, 255]),
          typed: { value: '7', type: 'Int64' },
        },
      ],
      ['upsert', { partitionKey: AWKWARD, rowKey: 'upserted', n: 2 }, 'Replace'],
      ['upsert', { partitionKey: AWKWARD, rowKey: 'to-merge', n: 2 }, 'Merge'],
      ['update', { partitionKey: AWKWARD, rowKey: 'to-update', n: 3 }, 'Replace', { etag }],
      ['delete', { partitionKey: AWKWARD, rowKey: 'to-delete' }],
    ];
    const answer = await submitTransaction(ours, actionsFor(await current(ours)));
    await theirs.submitTransaction(actionsFor(await current(theirs)));

    expect(await rows(ours)).toEqual(await rows(theirs));
    expect(await rows(ours)).toContainEqual(
      expect.objectContaining({ rowKey: 'to-merge', kept: 'yes', n: 2 }),
    );
    expect(answer.status).toBe(202);
    expect(answer.subResponses.map((s) => s.status)).toEqual([204, 204, 204, 204, 204]);
    // The updated row's answer carries the ETag a later conditional write must use.
    const updated = await ours.getEntity(AWKWARD, 'to-update');
    expect(answer.subResponses[3]?.etag).toBe(updated.etag);
  });

  it('writes nothing and throws the failed action status and code when one action fails', async () => {
    await submitTransaction(ours, [['create', { partitionKey: 'fail', rowKey: 'exists' }]]);
    const stale = (await ours.getEntity('fail', 'exists')).etag;
    await ours.updateEntity({ partitionKey: 'fail', rowKey: 'exists', n: 1 }, 'Replace');

    const create = submitTransaction(ours, [
      ['create', { partitionKey: 'fail', rowKey: 'fresh' }],
      ['create', { partitionKey: 'fail', rowKey: 'exists' }],
    ]);
    await expect(create).rejects.toMatchObject({ statusCode: 409, code: 'EntityAlreadyExists' });

    const update = submitTransaction(ours, [
      ['upsert', { partitionKey: 'fail', rowKey: 'fresh' }, 'Replace'],
      ['update', { partitionKey: 'fail', rowKey: 'exists', n: 2 }, 'Replace', { etag: stale }],
    ]);
    await expect(update).rejects.toMatchObject({
      statusCode: 412,
      code: 'UpdateConditionNotSatisfied',
    });

    const missing = submitTransaction(ours, [
      ['update', { partitionKey: 'fail', rowKey: 'missing' }, 'Merge'],
    ]);
    await expect(missing).rejects.toMatchObject({ statusCode: 404, code: 'ResourceNotFound' });

    // Atomic: the fresh row of the failed transactions was never written.
    await expect(ours.getEntity('fail', 'fresh')).rejects.toMatchObject({ statusCode: 404 });
    expect((await ours.getEntity('fail', 'exists')).n).toBe(1);
  });

  it('refuses actions of two partitions and values the table cannot hold, before sending', async () => {
    // In the storage's place: it counts what reaches it.
    let received = 0;
    const storageStandIn = await loopbackStorage('Counted', (_request, response) => {
      received += 1;
      response.writeHead(500).end();
    });
    const counted = storageStandIn.client;
    try {
      await expect(
        submitTransaction(counted, [
          ['create', { partitionKey: 'a', rowKey: '1' }],
          ['create', { partitionKey: 'b', rowKey: '1' }],
        ]),
      ).rejects.toThrow(/same partitionKey/);
      await expect(
        submitTransaction(counted, [['create', { partitionKey: 'a', rowKey: '2', list: [1, 2] }]]),
      ).rejects.toThrow('property "list" has a type Table Storage cannot hold');
      expect(received).toBe(0);
      // The listener does answer what is sent: the count above is not blind.
      await expect(
        submitTransaction(counted, [['create', { partitionKey: 'a', rowKey: '3' }]]),
      ).rejects.toMatchObject({ statusCode: 500 });
      expect(received).toBe(1);
    } finally {
      await storageStandIn.close();
    }
  });

  it('fails on a failed part without an error body, and on an answer that is not the transaction', async () => {
    // A storage (or a proxy in front of it) on loopback that answers as scripted.
    const answers = [
      {
        status: 202,
        type: 'multipart/mixed; boundary=batchresponse_1',
        body: '--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_2\r\n\r\n--changesetresponse_2\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 412 Precondition Failed\r\n\r\n\r\n--changesetresponse_2--\r\n--batchresponse_1--\r\n',
      },
      { status: 200, type: 'text/html', body: '<html>a proxy page</html>' },
    ];
    const storageStandIn = await loopbackStorage('Scripted', (_request, response) => {
      const answer = answers.shift()!;
      response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    });
    const scripted = storageStandIn.client;
    try {
      const write = () =>
        submitTransaction(scripted, [['upsert', { partitionKey: 'a', rowKey: '1' }, 'Replace']]);
      await expect(write()).rejects.toMatchObject({ statusCode: 412 });
      const malformed = write();
      await expect(malformed).rejects.toThrow('the transaction answered 0 parts for 1 actions');
      // Not the storage's answer: no status of its own, so the caller retries it.
      expect(
        storageFailure('index the request', await malformed.catch((e: unknown) => e)),
      ).toMatchObject({ retryable: true });
    } finally {
      await storageStandIn.close();
    }
  });

  it('sends nothing in clear text to an address that is not loopback', async () => {
    const remote = TableClient.fromConnectionString(
      'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;TableEndpoint=http://storage.invalid/devstoreaccount1;',
      'Remote',
    );
    await expect(
      submitTransaction(remote, [['create', { partitionKey: 'a', rowKey: '1' }]]),
    ).rejects.toThrow('storage: a table call goes over https, or plain http to a loopback address');
  });
});
