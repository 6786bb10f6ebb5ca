import { describe, expect, it } from 'vitest';
import { queueClient, tableClient } from '../../../src/store/storage-clients';

const key = Buffer.from('not-a-real-key').toString('base64');

describe('tableClient and queueClient', () => {
  it('reach the account over https with the identity connection', () => {
    const connection = { kind: 'identity', accountName: 'provstore', clientId: 'c-1' } as const;
    expect(tableClient(connection, 'Journal').url).toBe('https://provstore.table.core.windows.net');
    expect(queueClient(connection, 'bulk').url).toBe(
      'https://provstore.queue.core.windows.net/bulk',
    );
  });

  it('use the endpoints of a connection string', () => {
    const connectionString = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=http://127.0.0.1:41001/devstoreaccount1;QueueEndpoint=http://127.0.0.1:41002/devstoreaccount1`;
    const connection = { kind: 'connectionString', connectionString } as const;
    expect(tableClient(connection, 'Journal').url).toBe('http://127.0.0.1:41001/devstoreaccount1');
    expect(queueClient(connection, 'bulk').url).toBe(
      'http://127.0.0.1:41002/devstoreaccount1/bulk',
    );
  });

  it('refuse a queue over plain http to anything but loopback', () => {
    const connectionString = `DefaultEndpointsProtocol=http;AccountName=prod;AccountKey=${key};EndpointSuffix=core.windows.net`;
    const connection = { kind: 'connectionString', connectionString } as const;
    expect(() => queueClient(connection, 'bulk')).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.not.stringContaining(key),
      }),
    );
  });
});
