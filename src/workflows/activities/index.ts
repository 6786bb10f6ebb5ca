import type { LogProperties } from '../../domain/logger';
import type { ActivityName } from '../names';
import type { ServicesProvider } from '../workflow-services';
import { accountActivities } from './account-activities';
import { membershipActivities } from './membership-activities';
import { previewActivities } from './preview-activities';
import { serviceActivities } from './service-activities';

export type ActivityHandler = (input: never) => Promise<unknown>;

/**
 * Every activity handler by name: registered in functions/ and run by the local host. Each
 * call is logged with its connector and account id, and whether it ended as expected
 * (never its input: it may be a whole user profile).
 */
export function createActivityHandlers(
  services: ServicesProvider,
): Record<ActivityName, ActivityHandler> {
  const handlers: Record<ActivityName, ActivityHandler> = {
    ...accountActivities(services),
    ...membershipActivities(services),
    ...serviceActivities(services),
    ...previewActivities(services),
  };
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [
      name,
      async (input: never) => {
        const started = Date.now();
        const result = (await handler(input)) as { ok?: boolean; error?: { code?: string } };
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
