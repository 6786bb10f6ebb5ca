import type { QueueClient } from '@azure/storage-queue';
import type { DriftEvent } from '../domain/drift-event';
import { ensureQueue } from './storage-clients';
import { guardStorage } from './storage-failure';

/** The queue of new drift findings (issue 18): `infra/core/storage.bicep` creates it too. */
export const DRIFT_EVENTS_QUEUE = 'drift-events';

/**
 * The `drift-events` storage queue: one message per new finding, base64 of its JSON, as the
 * Functions queue trigger reads messages by default (the bulk queue is written the same way).
 */
export class DriftEventQueue {
  private ready: Promise<void> | undefined;

  constructor(private readonly queue: QueueClient) {}

  get name(): string {
    return this.queue.name;
  }

  async send(events: readonly DriftEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.ensure();
    for (const event of events) {
      const text = Buffer.from(JSON.stringify(event), 'utf8').toString('base64');
      await guardStorage('send a drift event', () => this.queue.sendMessage(text));
    }
  }

  /** Up to 32 messages without taking them, decoded (tests and the CLI look at the queue). */
  async peek(max = 32): Promise<DriftEvent[]> {
    await this.ensure();
    const response = await guardStorage('read the drift events', () =>
      this.queue.peekMessages({ numberOfMessages: Math.min(Math.max(max, 1), 32) }),
    );
    return response.peekedMessageItems.map(
      (item) => JSON.parse(Buffer.from(item.messageText, 'base64').toString('utf8')) as DriftEvent,
    );
  }

  private ensure(): Promise<void> {
    this.ready ??= guardStorage(`create queue ${this.queue.name}`, () =>
      ensureQueue(this.queue),
    ).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }
}
