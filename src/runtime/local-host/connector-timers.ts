import { Cron } from 'croner';
import type { InvocationContext } from '@azure/functions';
import type { ConnectorSettings } from '../../config/connector-settings';
import type { Logger } from '../../domain/logger';
import { createInvocationContext } from './invocation-context';

type TimerHandler = (timer: unknown, context: InvocationContext) => Promise<unknown>;

/** Timers of connector jobs the local host runs. */
export interface ScheduledJobs {
  stop(): void;
  schedules: { connector: string; next: Date | null }[];
}

/**
 * The local host's stand-in for the import timer triggers: one schedule per connector
 * with an `importSchedule` (NCRONTAB with seconds, in UTC as in Azure).
 */
export function scheduleImports(
  connectors: readonly ConnectorSettings[],
  handlerFor: (connector: string) => TimerHandler,
  logger: Logger,
): ScheduledJobs {
  return scheduleTimers(connectors, (c) => c.importSchedule, handlerFor, 'import', logger);
}

/** The stand-in for the reconciliation timer triggers: one per connector with a `reconcileSchedule`. */
export function scheduleReconciliations(
  connectors: readonly ConnectorSettings[],
  handlerFor: (connector: string) => TimerHandler,
  logger: Logger,
): ScheduledJobs {
  return scheduleTimers(connectors, (c) => c.reconcileSchedule, handlerFor, 'reconcile', logger);
}

function scheduleTimers(
  connectors: readonly ConnectorSettings[],
  scheduleOf: (connector: ConnectorSettings) => string | undefined,
  handlerFor: (connector: string) => TimerHandler,
  job: 'import' | 'reconcile',
  logger: Logger,
): ScheduledJobs {
  const jobs = connectors.flatMap((connector) => {
    const schedule = scheduleOf(connector);
    if (schedule === undefined) return [];
    const handler = handlerFor(connector.name);
    const cron = new Cron(schedule, { timezone: 'UTC', protect: true }, async () => {
      const context = createInvocationContext(`${job}-${connector.name}`, logger);
      try {
        await handler({ isPastDue: false, schedule: { adjustForDST: false } }, context);
      } catch (error) {
        logger.warn(
          `scheduled ${job} of ${connector.name} failed to start: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
    return [{ connector: connector.name, cron }];
  });
  return {
    stop: () => jobs.forEach(({ cron }) => cron.stop()),
    schedules: jobs.map(({ connector, cron }) => ({ connector, next: cron.nextRun() })),
  };
}
