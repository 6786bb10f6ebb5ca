import type { QueueClient } from '@azure/storage-queue';
import type { StorageConnection } from '../config/app-config';
import { ProvisioningError } from '../domain/errors';
import { ensureQueue, queueClient } from './storage-clients';
import { guardStorage, storageCode, storageFailure, storageStatus } from './storage-failure';

/** A bulk request taken from the queue, its text decoded (the JSON the sender sent). */
export interface ReceivedBulkMessage {
  messageId: string;
  popReceipt: string;
  /** How many times the message has been handed out, this time included. */
  dequeueCount: number;
  text: string;
}

/** A message given up on, as the poison queue keeps it. */
export interface PoisonRecord {
  reason: string;
  /** The message (or the one request of it given up), its secrets redacted. */
  message: unknown;
  /** The queue message's id, from which the requestIds it did not name were derived. */
  messageId?: string;
  /** Which request of a message holding an array of them. */
  index?: number;
  dequeueCount: number;
  /** ISO time it was given up. */
  at: string;
}

/** Queue Storage: a message may hold 64 KiB of text; base64 makes 3 bytes 4 characters. */
const MAX_MESSAGE_TEXT = 64 * 1024;
/** Queue Storage hands out at most 32 messages per call. */
const MAX_RECEIVE = 32;
/* Poison messages wait for an operator: they do not expire (-1, Queue API 2017-07-29). */
const NEVER_EXPIRE = -1;

/**
 * The bulk request queue and its poison queue `<name>-poison`. Messages are JSON, base64
 * encoded on the wire: the Functions queue trigger (storage extension 5.x, the bundle's)
 * decodes base64 by default (`extensions.queues.messageEncoding`, default "base64"), so
 * messages sent here reach the trigger in Azure as they reach the local host's poller.
 */
export class BulkQueue {
  private ready: Promise<void> | undefined;

  constructor(
    private readonly queue: QueueClient,
    private readonly poison: QueueClient,
  ) {}

  /**
   * The bulk queue named `name` (and `<name>-poison`) of a storage connection.
   *
   * @example
   * const bulk = BulkQueue.connect(config.storage, config.bulkQueueName);
   * await bulk.send({ connector: 'hr', account: { accountId: 'jdoe' }, actions: [] });
   */
  static connect(connection: StorageConnection, name: string): BulkQueue {
    return new BulkQueue(queueClient(connection, name), queueClient(connection, `${name}-poison`));
  }

  /** The name of the queue the trigger reads. */
  get name(): string {
    return this.queue.name;
  }

  /** Sends a message as base64 of its JSON; too large a message is refused (REQUEST_TOO_LARGE). */
  async send(message: unknown): Promise<void> {
    const text = encode(message);
    await this.ensure();
    await guardStorage('send a bulk request', () => this.queue.sendMessage(text));
  }

  /**
   * Takes up to `max` (1-32) messages, hidden from other receivers for
   * `visibilityTimeoutSeconds`; each must be deleted once handled, or it comes back.
   */
  async receive(max: number, visibilityTimeoutSeconds: number): Promise<ReceivedBulkMessage[]> {
    await this.ensure();
    const numberOfMessages = Math.min(Math.max(Math.trunc(max), 1), MAX_RECEIVE);
    const response = await guardStorage('receive bulk requests', () =>
      this.queue.receiveMessages({ numberOfMessages, visibilityTimeout: visibilityTimeoutSeconds }),
    );
    return response.receivedMessageItems.map((item) => ({
      messageId: item.messageId,
      popReceipt: item.popReceipt,
      dequeueCount: item.dequeueCount,
      text: decode(item.messageText),
    }));
  }

  /**
   * Keeps a message being handled hidden `visibilityTimeoutSeconds` longer, from now; the
   * answer is its new pop receipt, which the next extension or the delete must use.
   */
  async extend(
    messageId: string,
    popReceipt: string,
    visibilityTimeoutSeconds: number,
  ): Promise<string> {
    const response = await guardStorage('keep a bulk request hidden', () =>
      this.queue.updateMessage(messageId, popReceipt, undefined, visibilityTimeoutSeconds),
    );
    if (response.popReceipt === undefined) {
      throw storageFailure('keep a bulk request hidden', new Error('no pop receipt in the answer'));
    }
    return response.popReceipt;
  }

  /**
   * Deletes a handled message. One already deleted (404) is left alone, and so is one
   * re-received by another taker meanwhile (400 `PopReceiptMismatch`: this receipt is stale):
   * that taker handles it again, idempotently, and deletes it.
   */
  async delete(messageId: string, popReceipt: string): Promise<void> {
    try {
      await this.queue.deleteMessage(messageId, popReceipt);
    } catch (error) {
      if (storageStatus(error) === 404 || storageCode(error) === 'PopReceiptMismatch') return;
      throw storageFailure('delete a bulk request', error);
    }
  }

  /** Puts a record of a message given up on into `<name>-poison`, where it does not expire. */
  async sendPoison(record: PoisonRecord): Promise<void> {
    const text = encode(record);
    await this.ensure();
    await guardStorage('send to the poison queue', () =>
      this.poison.sendMessage(text, { messageTimeToLive: NEVER_EXPIRE }),
    );
  }

  /** Messages waiting in the queue and in its poison queue: Queue Storage's approximate counts. */
  async backlog(): Promise<{ requests: number; poison: number }> {
    await this.ensure();
    const [requests, poison] = await guardStorage('count the bulk queues', () =>
      Promise.all([this.queue.getProperties(), this.poison.getProperties()]),
    );
    return {
      requests: requests.approximateMessagesCount ?? 0,
      poison: poison.approximateMessagesCount ?? 0,
    };
  }

  /**
   * Up to `max` (1-32) poison records, oldest first, without taking them. A message the
   * Functions host moved there itself (the original request, not a record) is shown as
   * a record with reason "moved by the Functions host".
   */
  async peekPoison(max: number): Promise<PoisonRecord[]> {
    await this.ensure();
    const numberOfMessages = Math.min(Math.max(Math.trunc(max), 1), MAX_RECEIVE);
    const response = await guardStorage('read the poison queue', () =>
      this.poison.peekMessages({ numberOfMessages }),
    );
    return response.peekedMessageItems.map((item) => {
      const content = parse(decode(item.messageText));
      return isPoisonRecord(content)
        ? content
        : {
            reason: 'moved by the Functions host',
            message: content,
            dequeueCount: item.dequeueCount,
            at: item.insertedOn.toISOString(),
          };
    });
  }

  private ensure(): Promise<void> {
    this.ready ??= guardStorage(`create queue ${this.queue.name}`, async () => {
      await Promise.all([ensureQueue(this.queue), ensureQueue(this.poison)]);
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }
}

function encode(message: unknown): string {
  const json = JSON.stringify(message);
  if (json === undefined) {
    throw new ProvisioningError('REQUEST_INVALID', 'a queue message must be a JSON value');
  }
  const text = Buffer.from(json, 'utf8').toString('base64');
  if (text.length > MAX_MESSAGE_TEXT) {
    throw new ProvisioningError(
      'REQUEST_TOO_LARGE',
      `the bulk request is ${Buffer.byteLength(json)} bytes of JSON; a queue message holds at most 49152`,
    );
  }
  return text;
}

/*
 * Always base64, as the trigger in Azure reads it: a message put as plain text decodes to
 * garbage, fails to parse in the handler and ends in the poison queue, as it would there.
 */
function decode(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isPoisonRecord(value: unknown): value is PoisonRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.reason === 'string' &&
    'message' in record &&
    typeof record.dequeueCount === 'number' &&
    typeof record.at === 'string'
  );
}
