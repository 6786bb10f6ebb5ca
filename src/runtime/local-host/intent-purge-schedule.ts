import { Cron } from 'croner';
import type { InvocationContext } from '@azure/functions';
import { INTENT_PURGE_SCHEDULE } from '../../api/intent-purge-timer';
import type { Logger } from '../../domain/logger';
import { createInvocationContext } from './invocation-context';

/**
 * The local host's stand-in for the timer trigger that purges write intents, on the same
 * schedule (UTC, as in Azure). Answers how to stop it.
 */
export function schedulePurgeOfIntents(
  handler: (timer: unknown, context: InvocationContext) => Promise<unknown>,
  logger: Logger,
): () => void {
  const cron = new Cron(INTENT_PURGE_SCHEDULE, { timezone: 'UTC', protect: true }, async () => {
    const context = createInvocationContext('purge-write-intents', logger);
    try {
      await handler({ isPastDue: false, schedule: { adjustForDST: false } }, context);
    } catch (error) {
      logger.warn(
        `the purge of write intents failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
  return () => cron.stop();
}
