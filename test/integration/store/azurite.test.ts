import { TableClient } from '@azure/data-tables';
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
});
