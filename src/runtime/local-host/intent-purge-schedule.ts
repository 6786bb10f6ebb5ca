import { Cron } from 'croner';
import type { InvocationContext } from '@azure/functions';
import { INTENT_PURGE_SCHEDULE } from '../../api/intent-purge-timer';
import { PASSWORD_SWEEP_SCHEDULE } from '../../api/password-sweep-timer';
import type { Logger } from '../../domain/logger';
import { createInvocationContext } from './invocation-context';

type TimerHandler = (timer: unknown, context: InvocationContext) => Promise<unknown>;

/**
 * The local host's stand-in for a timer trigger, on its Azure schedule (UTC, as in Azure): a
 * failure is logged as `the <what> failed`, and the next run comes as scheduled. Answers how
 * to stop it.
 */
function scheduleTimer(
  schedule: string,
  name: string,
  what: string,
  handler: TimerHandler,
  logger: Logger,
): () => void {
  const cron = new Cron(schedule, { timezone: 'UTC', protect: true }, async () => {
    const context = createInvocationContext(name, logger);
    try {
      await handler({ isPastDue: false, schedule: { adjustForDST: false } }, context);
    } catch (error) {
      logger.warn(`the ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return () => cron.stop();
}

/** The timer trigger that purges write intents. */
export function schedulePurgeOfIntents(handler: TimerHandler, logger: Logger): () => void {
  return scheduleTimer(
    INTENT_PURGE_SCHEDULE,
    'purge-write-intents',
    'purge of write intents',
    handler,
    logger,
  );
}

/** The hourly sweep of request passwords left behind. */
export function scheduleSweepOfPasswords(handler: TimerHandler, logger: Logger): () => void {
  return scheduleTimer(
    PASSWORD_SWEEP_SCHEDULE,
    'sweep-request-passwords',
    'sweep of request passwords',
    handler,
    logger,
  );
}
