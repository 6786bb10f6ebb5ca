import { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../../src/store/storage-clients';
import { insertRow } from '../../../src/store/table-row-insert';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let ours: TableClient;
let theirs: TableClient;

/** Every row of a table without its ETag and time, in key order. */
async function rows(table: TableClient): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const row of table.listEntities({ queryOptions: { filter: '' } })) {
    all.push(
      Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'etag' && k !== 'timestamp')),
    );
  }
  return all;
}

beforeAll(async () => {
  storage = await startTestStorage();
  ours = tableClient(storage.connection, 'InsertOurs');
  theirs = tableClient(storage.connection, 'InsertTheirs');
  await Promise.all([ours.createTable(), theirs.createTable()]);
});

afterAll(async () => {
  await storage.close();
});

// Keys with what the address or the body must escape: quotes, spaces, percent escapes, non-ASCII.
const AWKWARD = "o'brien %2F é ü";

describe('insertRow', () => {
  it("writes the row the SDK's createEntity writes, and answers its ETag", async () => {
    const entity = {
      partitionKey: AWKWARD,
      rowKey: `new ${AWKWARD}`,
      text: 'line one\r\n{"x": 1}',
      int: 42,
      double: 1.5,
      big: 12345678901234n,
      flag: false,
      when: new Date('2026-11-24T10:00:00.000Z'),
      bytes: new Uint8Array([1, 2, 255]),
      typed: { value: '7', type: 'Int64' },
    };
    const { etag } = await insertRow(ours, entity);
    await theirs.createEntity(entity);

    expect(await rows(ours)).toEqual(await rows(theirs));
    expect(etag).toBe((await ours.getEntity(AWKWARD, `new ${AWKWARD}`)).etag);
  });

  it('refuses a row that exists as the SDK does, and changes nothing', async () => {
    await insertRow(ours, { partitionKey: 'p', rowKey: 'taken', owner: 'first' });
    await theirs.createEntity({ partitionKey: 'p', rowKey: 'taken', owner: 'first' });

    const ourError: unknown = await insertRow(ours, {
      partitionKey: 'p',
      rowKey: 'taken',
      owner: 'second',
    }).catch((e: unknown) => e);
    const theirError: unknown = await theirs
      .createEntity({ partitionKey: 'p', rowKey: 'taken', owner: 'second' })
      .catch((e: unknown) => e);

    expect(theirError).toMatchObject({ statusCode: 409 });
    // The SDK leaves the code in the message (Azurite's body); the status is what callers read.
    expect(ourError).toMatchObject({ statusCode: 409, code: 'EntityAlreadyExists' });
    expect((await ours.getEntity<{ owner: string }>('p', 'taken')).owner).toBe('first');
  });

  it('sends nothing in clear text to an address that is not loopback', async () => {
    const remote = TableClient.fromConnectionString(
      'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;TableEndpoint=http://storage.invalid/devstoreaccount1;',
      'Remote',
    );
    await expect(insertRow(remote, { partitionKey: 'a', rowKey: '1' })).rejects.toThrow(
      'storage: a table call goes over https, or plain http to a loopback address',
    );
  });
});
