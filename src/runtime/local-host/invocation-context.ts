import { randomUUID } from 'node:crypto';
import { InvocationContext, type LogLevel } from '@azure/functions';
import type { Logger, LogProperties } from '../../domain/logger';

/**
 * A fresh InvocationContext for one invocation on the local host (an HTTP call, a queue
 * message, a timer, an activity call or an orchestrator replay), its log lines routed to
 * the host's logger (as the Functions host routes them to Application Insights).
 */
export function createInvocationContext(
  functionName: string,
  logger: Logger,
  properties: LogProperties = {},
  triggerMetadata?: Record<string, unknown>,
): InvocationContext {
  return new InvocationContext({
    functionName,
    ...(triggerMetadata === undefined ? {} : { triggerMetadata }),
    invocationId: randomUUID(),
    logHandler: (level: LogLevel, ...args: unknown[]) => {
      const message = args.map((arg) => (typeof arg === 'string' ? arg : String(arg))).join(' ');
      const fields = { functionName, ...properties };
      switch (level) {
        case 'trace':
        case 'debug':
          logger.debug(message, fields);
          break;
        case 'information':
          logger.info(message, fields);
          break;
        case 'warning':
          logger.warn(message, fields);
          break;
        case 'error':
        case 'critical':
          logger.error(message, fields);
          break;
        case 'none':
          break;
      }
    },
  });
}
