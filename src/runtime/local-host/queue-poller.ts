import type { InvocationContext } from '@azure/functions';
import { MAX_DEQUEUE_COUNT } from '../../api/bulk-request-handler';
import type { Logger } from '../../domain/logger';
import type { BulkQueue, ReceivedBulkMessage } from '../../store/bulk-queue';
import { createInvocationContext } from './invocation-context';

export interface QueuePollerOptions {
  /** Pause between empty polls. */
  intervalMs: number;
  /** How long a message stays hidden after a failed attempt, before it is tried again. */
  visibilityTimeoutSeconds: number;
  /** Messages handled at once (the queue trigger's default batch size is 16). */
  batchSize: number;
  logger: Logger;
}

type QueueHandler = (message: unknown, context: InvocationContext) => Promise<void>;

/**
 * The local host's stand-in for the storage-queue trigger: it polls the bulk queue and
 * calls the same handler with the dequeue count in the trigger metadata. A handled
 * message is deleted; a failed one becomes visible again and is retried; the handler
 * itself sends a message to the poison queue on its fifth dequeue (host.json).
 */
export class QueuePoller {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly queue: BulkQueue,
    private readonly handler: QueueHandler,
    private readonly options: QueuePollerOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** One poll: handles what is visible now; returns how many messages were handled. */
  async pollOnce(): Promise<number> {
    const messages = await this.queue.receive(
      this.options.batchSize,
      this.options.visibilityTimeoutSeconds,
    );
    await Promise.all(messages.map((message) => this.handle(message)));
    return messages.length;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.pollOnce();
      } catch (error) {
        this.options.logger.warn(
          `bulk queue poll failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (handled === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.intervalMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  private async handle(message: ReceivedBulkMessage): Promise<void> {
    const context = createInvocationContext(
      'bulkRequests',
      this.options.logger,
      {},
      { dequeueCount: message.dequeueCount, id: message.messageId },
    );
    try {
      if (message.dequeueCount > MAX_DEQUEUE_COUNT) {
        await this.queue.sendPoison({
          reason: `dequeued ${message.dequeueCount} times`,
          message: '[withheld]',
          dequeueCount: message.dequeueCount,
          at: new Date().toISOString(),
        });
      } else {
        await this.handler(parse(message.text), context);
      }
      await this.queue.delete(message.messageId, message.popReceipt);
    } catch (error) {
      this.options.logger.warn(
        `bulk request ${message.messageId} failed (dequeue ${message.dequeueCount}): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
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
