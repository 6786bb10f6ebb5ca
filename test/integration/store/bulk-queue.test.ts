import { QueueClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkQueue } from '../../../src/store/bulk-queue';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;

beforeAll(async () => {
  storage = await startTestStorage();
});
afterAll(() => storage.close());

function rawQueue(name: string): QueueClient {
  if (storage.connection.kind !== 'connectionString')
    throw new Error('test storage is a connection string');
  return new QueueClient(storage.connection.connectionString, name);
}

describe('BulkQueue', () => {
  it('sends JSON as base64 text, as the Functions queue trigger expects by default', async () => {
    const bulk = BulkQueue.connect(storage.connection, 'bulk-wire');
    const request = {
      connector: 'hr',
      account: { accountId: 'jörg/ä#1' },
      actions: [{ type: 'create' }],
    };
    await bulk.send(request);
    const peeked = await rawQueue('bulk-wire').peekMessages();
    const text = peeked.peekedMessageItems[0]?.messageText ?? '';
    expect(JSON.parse(Buffer.from(text, 'base64').toString('utf8'))).toEqual(request);
  });

  it('receives decoded messages, hides them while handled, and deletes them', async () => {
    const bulk = BulkQueue.connect(storage.connection, 'bulk-cycle');
    await bulk.send({ n: 1 });
    await bulk.send({ n: 2 });
    const received = await bulk.receive(10, 30);
    expect(received.map((message) => JSON.parse(message.text) as unknown)).toEqual([
      { n: 1 },
      { n: 2 },
    ]);
    expect(received.every((message) => message.dequeueCount === 1)).toBe(true);
    expect(await bulk.receive(10, 30)).toEqual([]);
    for (const message of received) await bulk.delete(message.messageId, message.popReceipt);
    await expect(
      bulk.delete(received[0]!.messageId, received[0]!.popReceipt),
    ).resolves.toBeUndefined();
  });

  it('hands a message out again after its visibility timeout, counting dequeues', async () => {
    const bulk = BulkQueue.connect(storage.connection, 'bulk-again');
    await bulk.send({ n: 1 });
    const [first] = await bulk.receive(1, 1);
    expect(first?.dequeueCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const [second] = await bulk.receive(1, 30);
    expect(second).toMatchObject({ messageId: first?.messageId, dequeueCount: 2 });
  });

  it('leaves a message re-received by another taker to that taker: its stale receipt deletes nothing', async () => {
    const bulk = BulkQueue.connect(storage.connection, 'bulk-stale');
    await bulk.send({ n: 1 });
    const [first] = await bulk.receive(1, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const [second] = await bulk.receive(1, 1);
    expect(second?.messageId).toBe(first?.messageId);
    // The first taker's delete comes late: the queue refuses its receipt, and the message
    // stays for the taker that holds it now, who handles it again (idempotently) and deletes it.
    await expect(bulk.delete(first!.messageId, first!.popReceipt)).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const [third] = await bulk.receive(1, 30);
    expect(third).toMatchObject({ messageId: first?.messageId, dequeueCount: 3 });
  });

  it('keeps poison records in <name>-poison, and shows host-moved messages as records', async () => {
    const bulk = BulkQueue.connect(storage.connection, 'bulk-bad');
    const record = {
      reason: 'REQUEST_INVALID: connector "x" not found',
      message: { n: 1 },
      dequeueCount: 5,
      at: '2025-07-01T00:00:00.000Z',
    };
    await bulk.sendPoison(record);
    await rawQueue('bulk-bad-poison').sendMessage(Buffer.from('{"n":2}').toString('base64'));
    const poison = await bulk.peekPoison(10);
    expect(poison[0]).toEqual(record);
    expect(poison[1]).toMatchObject({ reason: 'moved by the Functions host', message: { n: 2 } });
    expect(await bulk.peekPoison(10)).toHaveLength(2);
    expect(await bulk.receive(10, 30)).toEqual([]);
  });

  it('refuses a message larger than a queue message holds', async () => {
    const bulk = BulkQueue.connect(storage.connection, 'bulk-large');
    await expect(bulk.send({ blob: 'x'.repeat(50_000) })).rejects.toMatchObject({
      code: 'REQUEST_TOO_LARGE',
    });
    await bulk.send({ blob: 'x'.repeat(40_000) });
    const [received] = await bulk.receive(1, 30);
    expect((JSON.parse(received?.text ?? '{}') as { blob: string }).blob).toHaveLength(40_000);
  });
});
