import type { InvocationContext } from '@azure/functions';
import type { LogProperties } from '../../domain/logger';
import { ACTIVITIES, type ActivityName } from '../names';
import type { OrchestrationClient } from '../orchestration-client';
import type { ServicesProvider } from '../workflow-services';
import { accountActivities } from './account-activities';
import { membershipActivities } from './membership-activities';
import { previewActivities } from './preview-activities';
import { quarantineActivities } from './quarantine-activities';
import { reconciliationActivities } from './reconciliation-activities';
import { serviceActivities } from './service-activities';
import { throttleActivities } from './throttle-activities';

export type ActivityHandler = (input: never, context?: InvocationContext) => Promise<unknown>;

/**
 * The activities that start orchestrations (a quarantine's probe): in Azure each is
 * registered with a Durable client input binding.
 */
export const ACTIVITIES_WITH_CLIENT: readonly ActivityName[] = [ACTIVITIES.connectorGate];

/**
 * Every activity handler by name: registered in functions/ and run by the local host. Each
 * call is logged with its connector and account id, and whether it ended as expected
 * (never its input: it may be a whole user profile). `orchestrations` gives the activities
 * of {@link ACTIVITIES_WITH_CLIENT} their orchestration client.
 */
export function createActivityHandlers(
  services: ServicesProvider,
  orchestrations?: (context: InvocationContext) => OrchestrationClient,
): Record<ActivityName, ActivityHandler> {
  const handlers: Record<ActivityName, ActivityHandler> = {
    ...accountActivities(services),
    ...membershipActivities(services),
    ...serviceActivities(services),
    ...previewActivities(services),
    ...quarantineActivities(services, orchestrations),
    ...reconciliationActivities(services),
    ...throttleActivities(services),
  };
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [
      name,
      async (input: never, context?: InvocationContext) => {
        const started = Date.now();
        const result = (await handler(input, context)) as {
          ok?: boolean;
          error?: { code?: string };
        };
        const { logger } = await services();
        logger.debug(
          `activity ${name}: ${result.ok === false ? `failed ${result.error?.code ?? ''}` : 'done'}`,
          {
            ...logProperties(input),
            ms: Date.now() - started,
          },
        );
        return result;
      },
    ]),
  ) as Record<ActivityName, ActivityHandler>;
}

function logProperties(input: unknown): LogProperties {
  const value = (input ?? {}) as {
    connector?: unknown;
    accountId?: unknown;
    account?: { accountId?: unknown };
    profile?: { accountId?: unknown };
  };
  const accountId = value.accountId ?? value.account?.accountId ?? value.profile?.accountId;
  return {
    ...(typeof value.connector === 'string' ? { connector: value.connector } : {}),
    ...(typeof accountId === 'string' ? { accountId } : {}),
  };
}
