import { ProvisioningError } from '../../domain/errors';
import type { GraphConnectorSettings } from './graph-settings';
import type { Logger } from '../../domain/logger';
import type { GraphErrorContext } from './graph-error-mapper';
import type { GraphHttp } from './graph-http';
import type { GraphTask } from './graph-permissions';
import type { GraphTokenProvider } from './token-provider';

/** What every Graph operation works with: one per connector instance. */
export interface GraphContext {
  settings: GraphConnectorSettings;
  http: GraphHttp;
  tokens: GraphTokenProvider;
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** Passwords in flight: redacted from anything Graph says back while they are. */
  transientSecrets: Set<string>;
}

/** The error mapper's context for one call. */
export function errorContext(
  context: GraphContext,
  task: GraphTask,
  subject: string,
  object: string,
  notFound: GraphErrorContext['notFound'] = 'GRAPH_REQUEST_REJECTED',
): GraphErrorContext {
  return { connector: context.settings.name, task, subject, object, notFound };
}

/** The error context of a call about one account: a 404 means the account is missing. */
export function accountErrorContext(
  context: GraphContext,
  task: GraphTask,
  account: { accountId: string },
): GraphErrorContext {
  return errorContext(
    context,
    task,
    `account "${account.accountId}"`,
    account.accountId,
    'ACCOUNT_NOT_FOUND',
  );
}

/** The error context of a read of one group: a 404 means the group is missing. */
export function groupErrorContext(context: GraphContext, groupId: string): GraphErrorContext {
  return errorContext(context, 'readGroups', `group "${groupId}"`, groupId, 'GROUP_NOT_FOUND');
}

/**
 * GROUP_NOT_FOUND for a group id that cannot name a group: Graph's ids are GUIDs, and
 * Graph answers anything else with 400 "Invalid object identifier", not 404.
 */
export function noSuchGroupId(context: GraphContext, groupId: string): ProvisioningError {
  return new ProvisioningError(
    'GROUP_NOT_FOUND',
    `connector "${context.settings.name}": no group has the id "${groupId}" (Microsoft Graph ` +
      `group ids are GUIDs; to find a group by name, search the groups)`,
    { object: groupId },
  );
}

/** Runs `action` with a password known to the redaction, and forgets it afterwards. */
export async function withTransientSecret<T>(
  context: GraphContext,
  secret: string,
  action: () => Promise<T>,
): Promise<T> {
  context.transientSecrets.add(secret);
  try {
    return await action();
  } finally {
    context.transientSecrets.delete(secret);
  }
}
