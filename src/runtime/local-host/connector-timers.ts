import { Cron } from 'croner';
import type { InvocationContext } from '@azure/functions';
import type { ConnectorSettings } from '../../config/connector-settings';
import type { Logger } from '../../domain/logger';
import { createInvocationContext } from './invocation-context';

type TimerHandler = (timer: unknown, context: InvocationContext) => Promise<unknown>;

/**
 * The local host's stand-in for the import timer triggers: one schedule per connector
 * with an `importSchedule` (NCRONTAB with seconds, in UTC as in Azure).
 */
export function scheduleImports(
  connectors: readonly ConnectorSettings[],
  handlerFor: (connector: string) => TimerHandler,
  logger: Logger,
): { stop(): void; schedules: { connector: string; next: Date | null }[] } {
  const jobs = connectors.flatMap((connector) => {
    if (connector.importSchedule === undefined) return [];
    const handler = handlerFor(connector.name);
    const job = new Cron(connector.importSchedule, { timezone: 'UTC', protect: true }, async () => {
      const context = createInvocationContext(`import-${connector.name}`, logger);
      try {
        await handler({ isPastDue: false, schedule: { adjustForDST: false } }, context);
      } catch (error) {
        logger.warn(
          `scheduled import of ${connector.name} failed to start: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
    return [{ connector: connector.name, job }];
  });
  return {
    stop: () => jobs.forEach(({ job }) => job.stop()),
    schedules: jobs.map(({ connector, job }) => ({ connector, next: job.nextRun() })),
  };
}
