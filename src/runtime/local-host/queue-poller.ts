import type { InvocationContext } from '@azure/functions';
import { HOST_MAX_DEQUEUE_COUNT } from '../../api/bulk-request-handler';
import { withBulkRequestIds } from '../../api/bulk-request-ids';
import { redactBulkMessage } from '../../api/redact-bulk-message';
import type { Logger } from '../../domain/logger';
import type { BulkQueue, ReceivedBulkMessage } from '../../store/bulk-queue';
import { createInvocationContext } from './invocation-context';

export interface QueuePollerOptions {
  /** Pause after the first empty poll. */
  intervalMs: number;
  /**
   * The longest pause: each further empty poll doubles it up to this (the trigger's
   * `maxPollingInterval`, a minute by default in Azure); `intervalMs` when absent (no back-off).
   */
  maxIntervalMs?: number;
  /**
   * How long a message stays hidden: while it is handled, extended every half of it; after a
   * failed attempt, at most this long before it is tried again.
   */
  visibilityTimeoutSeconds: number;
  /** Messages fetched per poll (host.json `extensions.queues.batchSize`: 16). */
  batchSize: number;
  /**
   * The next batch is fetched once this many messages or fewer are in hand (the trigger's
   * `newBatchThreshold`); `batchSize / 2` when absent, as in host.json.
   */
  newBatchThreshold?: number;
  /**
   * Resolves once the host may take in more messages (the local host: once few enough of the
   * requests it started are still before their first activity's end). Checked before each
   * fetch; messages not fetched stay on the queue, visible to every taker.
   */
  admit?: () => Promise<void>;
  logger: Logger;
  /** Told of each message moved to the poison queue here (its takers stopped each time). */
  onPoisoned?: () => void;
}

type QueueHandler = (message: unknown, context: InvocationContext) => Promise<void>;

/**
 * The local host's stand-in for the storage-queue trigger: it polls the bulk queue and
 * calls the same handler with the trigger's metadata (dequeue count and message id). A
 * message is kept hidden while it is handled; a handled one is deleted; a failed one becomes
 * visible again and is retried; the handler itself sends a message to the poison queue on
 * its fifth dequeue (host.json), and one taken more often (its takers stopped before they
 * ended) is moved there as it is, secrets redacted.
 *
 * Like the trigger (QueuesOptions of the storage extension), it does not wait for a whole
 * batch: it fetches the next one as soon as `newBatchThreshold` messages or fewer are in
 * hand, so at most `batchSize + newBatchThreshold` (24) are handled at once and a slow
 * message does not hold back the rest. An empty poll waits `intervalMs`, and each further one
 * twice as long up to `maxIntervalMs` (the trigger's back-off, which keeps an idle queue from
 * costing a storage transaction every few milliseconds); a message found starts it over.
 * Before each fetch it waits until the host admits more (`admit`): the local host takes in
 * new requests only while few enough of those it started are before their first activity's
 * end, so that the continuations of requests under way are not queued behind new ones.
 */
export class QueuePoller {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly stopped: Promise<void>;
  private stopping: () => void = () => undefined;
  /** Messages being handled now. */
  private readonly inHand = new Set<Promise<void>>();

  constructor(
    private readonly queue: BulkQueue,
    private readonly handler: QueueHandler,
    private readonly options: QueuePollerOptions,
  ) {
    this.stopped = new Promise((resolve) => (this.stopping = resolve));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.stopping();
    await this.loop;
  }

  private async run(): Promise<void> {
    const threshold = this.options.newBatchThreshold ?? Math.floor(this.options.batchSize / 2);
    const longest = Math.max(this.options.intervalMs, this.options.maxIntervalMs ?? 0);
    let pause = this.options.intervalMs;
    while (this.running) {
      if (this.inHand.size > threshold) {
        await Promise.race(this.inHand);
        continue;
      }
      if (this.options.admit !== undefined) {
        await Promise.race([this.options.admit(), this.stopped]);
        if (!this.running) break;
      }
      let received = 0;
      try {
        const messages = await this.queue.receive(
          this.options.batchSize,
          this.options.visibilityTimeoutSeconds,
        );
        received = messages.length;
        for (const message of messages) {
          const handling = this.handle(message).finally(() => this.inHand.delete(handling));
          this.inHand.add(handling);
        }
      } catch (error) {
        this.options.logger.warn(
          `bulk queue poll failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (received > 0) pause = this.options.intervalMs;
      else if (this.running) {
        const wait = pause;
        pause = Math.min(pause * 2, longest);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
    await Promise.all(this.inHand);
  }

  private async handle(message: ReceivedBulkMessage): Promise<void> {
    const context = createInvocationContext(
      'bulkRequests',
      this.options.logger,
      {},
      { dequeueCount: message.dequeueCount, id: message.messageId },
    );
    const hidden = this.keepHidden(message);
    try {
      if (message.dequeueCount > HOST_MAX_DEQUEUE_COUNT) {
        // Taken more often than the handler gives up on it: each taker stopped before it
        // ended (a crash, a kill). Moved as the Functions host moves it, content and all,
        // with the requestIds its redelivery would have used, so an operator can send it again.
        await this.queue.sendPoison({
          reason: `dequeued ${message.dequeueCount} times without being handled to the end`,
          message: redactBulkMessage(withBulkRequestIds(parse(message.text), message.messageId)),
          messageId: message.messageId,
          dequeueCount: message.dequeueCount,
          at: new Date().toISOString(),
        });
        this.options.onPoisoned?.();
      } else {
        await this.handler(parse(message.text), context);
      }
      await this.queue.delete(message.messageId, await hidden.stop());
    } catch (error) {
      await hidden.stop();
      this.options.logger.warn(
        `bulk request ${message.messageId} failed (dequeue ${message.dequeueCount}): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * Extends the message's invisibility every half visibility timeout while it is handled, as
   * the Functions host does: a handler slower than the timeout is not handed the same message
   * a second time meanwhile. `stop` ends the extensions and answers the latest pop receipt
   * (each extension replaces it; a delete with an old one would leave the message behind).
   */
  private keepHidden(message: ReceivedBulkMessage): { stop: () => Promise<string> } {
    const seconds = this.options.visibilityTimeoutSeconds;
    let receipt = message.popReceipt;
    let stopped = false;
    let extending: Promise<void> = Promise.resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      timer = setTimeout(
        () => {
          extending = this.queue
            .extend(message.messageId, receipt, seconds)
            .then(
              (next) => void (receipt = next),
              (error: unknown) =>
                this.options.logger.warn(
                  `bulk request ${message.messageId}: could not keep it hidden while handled (${error instanceof Error ? error.message : String(error)}); it may be delivered again meanwhile`,
                ),
            )
            .finally(() => {
              if (!stopped) schedule();
            });
        },
        (seconds * 1000) / 2,
      );
    };
    schedule();
    return {
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await extending;
        return receipt;
      },
    };
  }
}

/** As the queue trigger binds it: a JSON message arrives parsed, anything else as text. */
function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
