import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TableClient } from '@azure/data-tables';
import { QueueClient } from '@azure/storage-queue';
import { describe, expect, it } from 'vitest';
import { startAzurite } from '../../../src/runtime/local-host/azurite';

describe('startAzurite', () => {
  it('serves tables on the ports of its connection string, and nothing after close', async () => {
    const azurite = await startAzurite();
    const endpoint = /TableEndpoint=(http:\/\/127\.0\.0\.1:\d+)\//.exec(
      azurite.connectionString,
    )?.[1];
    expect(endpoint).toBeDefined();
    expect(azurite.connectionString).toMatch(
      /QueueEndpoint=http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1/,
    );
    const client = TableClient.fromConnectionString(azurite.connectionString, 'Probe', {
      allowInsecureConnection: true,
      retryOptions: { maxRetries: 0 },
    });
    await client.createTable();
    await client.upsertEntity({ partitionKey: 'p', rowKey: 'r', value: 1 });
    expect((await client.getEntity('p', 'r')).value).toBe(1);

    await azurite.close();
    await expect(fetch(`${endpoint}/devstoreaccount1/Tables`)).rejects.toThrow();
  });

  it('gives each instance its own data', async () => {
    const [a, b] = await Promise.all([startAzurite(), startAzurite()]);
    try {
      const options = { allowInsecureConnection: true };
      const inA = TableClient.fromConnectionString(a.connectionString, 'Mine', options);
      await inA.createTable();
      await inA.upsertEntity({ partitionKey: 'p', rowKey: 'r' });
      const inB = TableClient.fromConnectionString(b.connectionString, 'Mine', options);
      await expect(inB.getEntity('p', 'r')).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('keeps tables and queues in its location: a flushed write is there for an Azurite started on it while the first still runs', async () => {
    const location = await mkdtemp(join(tmpdir(), 'azurite-location-'));
    const options = { allowInsecureConnection: true };
    const first = await startAzurite({ location });
    try {
      const table = TableClient.fromConnectionString(first.connectionString, 'Kept', options);
      await table.createTable();
      await table.upsertEntity({ partitionKey: 'p', rowKey: 'r', value: 7 });
      const queue = new QueueClient(first.connectionString, 'kept');
      await queue.create();
      await queue.sendMessage('hello');
      await first.flush();

      // As after a kill -9 of the first: nothing of it but what is on disk.
      const copy = await copyOf(location);
      const second = await startAzurite({ location: copy });
      try {
        const again = TableClient.fromConnectionString(second.connectionString, 'Kept', options);
        expect((await again.getEntity('p', 'r')).value).toBe(7);
      } finally {
        await second.close();
        await rm(copy, { recursive: true, force: true });
      }
    } finally {
      await first.close();
    }
    // A clean close saves the queues too.
    const third = await startAzurite({ location });
    try {
      const queue = new QueueClient(third.connectionString, 'kept');
      const { receivedMessageItems } = await queue.receiveMessages();
      expect(receivedMessageItems.map((item) => item.messageText)).toEqual(['hello']);
    } finally {
      await third.close();
      await rm(location, { recursive: true, force: true });
    }
  });
});

/** A copy of a folder as it is on disk now (a second Azurite must not save over the first's files). */
async function copyOf(folder: string): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'azurite-copy-'));
  await cp(folder, copy, { recursive: true });
  return copy;
}
