import { Cron } from 'croner';
import type { InvocationContext } from '@azure/functions';
import { INTENT_PURGE_SCHEDULE } from '../../api/intent-purge-timer';
import { PASSWORD_SWEEP_SCHEDULE } from '../../api/password-sweep-timer';
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

/** The same for the hourly sweep of request passwords left behind, on the Azure schedule. */
export function scheduleSweepOfPasswords(
  handler: (timer: unknown, context: InvocationContext) => Promise<unknown>,
  logger: Logger,
): () => void {
  const cron = new Cron(PASSWORD_SWEEP_SCHEDULE, { timezone: 'UTC', protect: true }, async () => {
    const context = createInvocationContext('sweep-request-passwords', logger);
    try {
      await handler({ isPastDue: false, schedule: { adjustForDST: false } }, context);
    } catch (error) {
      logger.warn(
        `the sweep of request passwords failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
  return () => cron.stop();
}
