import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueClient } from '../../src/store/storage-clients';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import { expectNoSecrets } from '../support/no-secrets';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';

/* The host's Azurite is the test's own, so the poison queue can be read as it is stored. */
let storage: TestStorage;
let t: TestHost;
beforeAll(async () => {
  storage = await startTestStorage();
  t = await startTestHost({}, { storage: storage.connection });
});
afterAll(async () => {
  await t?.close();
  await storage?.close();
});

interface Listed {
  requestId: string;
  source: string;
  status: string;
}

/**
 * The bulk queue with its first delete lost after the handler ended (the worker died, or
 * storage failed: at-least-once delivery allows it): the message stays hidden `hideSeconds`,
 * then comes back with the same message id. `deletes()` counts the deletes that went through.
 */
function losingFirstDelete(hideSeconds: number) {
  const queue = t.host.services.bulkQueue;
  // The same queue, reached past BulkQueue, to hide the message as a lost delete leaves it.
  const raw = queueClient(storage.connection, queue.name);
  const realDelete = queue.delete.bind(queue);
  const ids: string[] = [];
  let deleted = 0;
  queue.delete = async (messageId: string, popReceipt: string) => {
    ids.push(messageId);
    if (ids.length === 1) {
      await raw.updateMessage(messageId, popReceipt, undefined, hideSeconds);
      throw new Error('worker died before deleting the message');
    }
    await realDelete(messageId, popReceipt);
    deleted += 1;
  };
  return {
    ids,
    deletes: () => deleted,
    restore: () => {
      queue.delete = realDelete;
    },
  };
}

async function queued(accountId: string): Promise<Listed[]> {
  const answer = await t.api('GET', `/api/requests?connector=scim-sandbox&accountId=${accountId}`);
  return (answer.body.requests as Listed[]).filter((request) => request.source === 'queue');
}

/** The SCIM sandbox's committed changes of one account since `since`, groups by name. */
function truthOf(accountId: string, since: number): string[] {
  const scim = t.host.sandboxes!.scim;
  const names = new Map(
    (scim.listGroups() as { id: string; displayName: string }[]).map((g) => [g.id, g.displayName]),
  );
  return scim
    .truthLog()
    .filter((event) => event.seq > since && event.accountId === accountId)
    .map((event) =>
      event.groupId === undefined
        ? event.change
        : `${event.change} ${names.get(event.groupId) ?? event.groupId}`,
    );
}

const lastSeq = () => t.host.sandboxes!.scim.truthLog().at(-1)?.seq ?? 0;

describe('bulk messages delivered twice', () => {
  it('a message without requestId delivered again after a revoke is a duplicate: the revoke stands', async () => {
    const created = await t.api('POST', '/api/requests', {
      requestId: 'redelivery-create',
      connector: 'scim-sandbox',
      account: { accountId: 'redelivery.one', displayName: 'Redelivery One' },
      actions: [{ type: 'create' }],
    });
    expect(created.status).toBe(202);
    expect((await t.finished('redelivery-create')).status).toBe('succeeded');
    const since = lastSeq();

    const lossy = losingFirstDelete(10);
    let first: Listed | undefined;
    try {
      await t.host.services.bulkQueue.send({
        connector: 'scim-sandbox',
        account: { accountId: 'redelivery.one' },
        actions: [{ type: 'grant', groups: ['Sales'] }],
      });
      first = await until('the bulk grant', async () => {
        const list = await queued('redelivery.one');
        return list.length === 1 && list[0]!.status === 'succeeded' ? list[0] : undefined;
      });

      // The operator revokes the access while the message waits to come back.
      const revoke = await t.api('POST', '/api/requests', {
        requestId: 'redelivery-revoke',
        connector: 'scim-sandbox',
        account: { accountId: 'redelivery.one' },
        actions: [{ type: 'revoke', groups: ['Sales'] }],
      });
      expect(revoke.status).toBe(202);
      expect((await t.finished('redelivery-revoke')).status).toBe('succeeded');

      // The same message comes back and is handled (its delete goes through this time).
      await until(
        'the redelivery handled',
        async () => (lossy.deletes() === 1 ? true : undefined),
        {
          timeoutMs: 60_000,
        },
      );
      expect(lossy.ids).toEqual([lossy.ids[0], lossy.ids[0]]);
    } finally {
      lossy.restore();
    }
    // Whatever the redelivery started has ended before the target is judged.
    const list = await queued('redelivery.one');
    for (const request of list) await t.finished(request.requestId);
    // The target's truth: granted once, revoked once; the revoke was not undone.
    expect(truthOf('redelivery.one', since)).toEqual([
      'member added Sales',
      'member removed Sales',
    ]);
    // One request, under the id derived from the message's: the redelivery was its duplicate.
    expect(list.map((request) => request.requestId)).toEqual([`queue-${lossy.ids[0]}`]);
    expect(first.requestId).toBe(`queue-${lossy.ids[0]}`);
  }, 120_000);

  it('each request of an array message runs once under its own derived id, however often it is delivered', async () => {
    const since = lastSeq();
    const lossy = losingFirstDelete(2);
    try {
      await t.host.services.bulkQueue.send([
        {
          connector: 'scim-sandbox',
          account: { accountId: 'redelivery.a', displayName: 'Redelivery A' },
          actions: [{ type: 'create' }, { type: 'grant', groups: ['Support'] }],
        },
        {
          connector: 'scim-sandbox',
          account: { accountId: 'redelivery.b', displayName: 'Redelivery B' },
          actions: [{ type: 'create' }, { type: 'grant', groups: ['Finance'] }],
        },
      ]);
      await until(
        'the redelivery handled',
        async () => (lossy.deletes() === 1 ? true : undefined),
        {
          timeoutMs: 60_000,
        },
      );
    } finally {
      lossy.restore();
    }
    const messageId = lossy.ids[0]!;
    for (const [index, accountId] of ['redelivery.a', 'redelivery.b'].entries()) {
      const requestId = `queue-${messageId}-${index}`;
      expect((await queued(accountId)).map((request) => request.requestId)).toEqual([requestId]);
      expect((await t.finished(requestId)).status).toBe('succeeded');
    }
    expect(truthOf('redelivery.a', since)).toEqual(['account created', 'member added Support']);
    expect(truthOf('redelivery.b', since)).toEqual(['account created', 'member added Finance']);
  }, 120_000);
});

describe('the poison queue', () => {
  it('keeps no secret of a message it holds: any key naming one, at any depth, in arrays too', async () => {
    const queue = t.host.services.bulkQueue;
    const before = (await queue.backlog()).poison;
    const planted = {
      array: 'Planted-Array-Pw-1',
      nested: 'Planted-Nested-Pw-2',
      capitalised: 'Planted-Case-Pw-3',
      clientSecret: 'Planted-Client-Secret-4',
      token: 'Planted-Access-Token-5',
      text: 'Planted-Text-Pw-6',
    };
    await queue.send([
      {
        connector: 'scim-sandbox',
        account: { accountId: 'poison.array' },
        password: planted.array,
        actions: [{ type: 'promote' }],
      },
    ]);
    await queue.send({
      connector: 'scim-sandbox',
      account: { accountId: 'poison.nested', attributes: { password: planted.nested } },
      Password: planted.capitalised,
      extra: { clientSecret: planted.clientSecret, access_token: planted.token },
      actions: [{ type: 'create' }],
    });
    await queue.send(`{"connector": "scim-sandbox", "password": "${planted.text}"`);
    await until('3 new poison records', async () =>
      (await queue.backlog()).poison >= before + 3 ? true : undefined,
    );
    // The poison queue as stored: base64 of each record's JSON, read past BulkQueue.
    const raw = await queueClient(storage.connection, `${queue.name}-poison`).peekMessages({
      numberOfMessages: 32,
    });
    const texts = raw.peekedMessageItems.map((item) =>
      Buffer.from(item.messageText, 'base64').toString('utf8'),
    );
    expectNoSecrets(texts, planted, 'the poison queue');
    const records = texts.map((text) => JSON.parse(text) as Record<string, unknown>);
    // What an operator needs to send the array's request again: the request, its id and place.
    expect(records).toContainEqual({
      reason: expect.stringContaining('request 0: invalid request: actions.0.type'),
      message: {
        requestId: expect.stringMatching(/^queue-.+-0$/),
        connector: 'scim-sandbox',
        account: { accountId: 'poison.array' },
        password: '[redacted]',
        actions: [{ type: 'promote' }],
      },
      messageId: expect.any(String),
      index: 0,
      dequeueCount: 1,
      at: expect.any(String),
    });
    expect(records).toContainEqual(
      expect.objectContaining({
        message: expect.objectContaining({
          account: { accountId: 'poison.nested', attributes: { password: '[redacted]' } },
          Password: '[redacted]',
          extra: { clientSecret: '[redacted]', access_token: '[redacted]' },
        }),
      }),
    );
  }, 60_000);
});
