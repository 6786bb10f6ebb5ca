import type { GraphConnectorSettings } from '../../config/connector-settings';
import { ProvisioningError } from '../../domain/errors';
import type { MembershipRequest } from '../../domain/membership-plan';
import type { StatusResult } from '../connector';
import {
  changeMemberships,
  realClock,
  type Clock,
  type MembershipChangeOutcome,
} from '../membership-change';
import {
  createGraphConnector,
  type GraphConnector,
  type GraphConnectorDeps,
} from './graph-connector';
import type { StatusOptions } from './graph-status';

/**
 * The CLI's "status" for a Graph connector: token acquisition (the spec's check), the
 * roles hint, and with `probe` the probe reads. The connector is closed afterwards.
 *
 * @example
 * const status = await runGraphStatus(settings, { secrets }, { probe: true });
 */
export async function runGraphStatus(
  settings: GraphConnectorSettings,
  deps: GraphConnectorDeps,
  options: StatusOptions = {},
): Promise<StatusResult> {
  return withGraphConnector(settings, deps, (connector) => connector.checkStatus(options));
}

/**
 * The CLI's membership write procedure for one account (spec: Membership write procedure,
 * steps 1-6) through the shared loop `changeMemberships`. The account is looked up by its
 * account ID (a bare name gets the UPN domain).
 *
 * @example
 * const outcome = await runGraphMembershipChange(settings, { secrets }, 'jdoe', { grant: ['g1'], revoke: [] });
 */
export async function runGraphMembershipChange(
  settings: GraphConnectorSettings,
  deps: GraphConnectorDeps,
  accountId: string,
  request: MembershipRequest,
  clock: Clock = realClock,
): Promise<MembershipChangeOutcome> {
  return withGraphConnector(settings, deps, async (connector) => {
    const account = await connector.findAccount(accountId);
    if (account === undefined) {
      throw new ProvisioningError(
        'ACCOUNT_NOT_FOUND',
        `connector "${settings.name}": account "${accountId}" not found`,
        { object: accountId },
      );
    }
    return changeMemberships(connector, account, request, clock);
  });
}

/** Runs `action` with a fresh connector and always closes it. */
export async function withGraphConnector<T>(
  settings: GraphConnectorSettings,
  deps: GraphConnectorDeps,
  action: (connector: GraphConnector) => Promise<T>,
): Promise<T> {
  const connector = createGraphConnector(settings, deps);
  try {
    return await action(connector);
  } finally {
    await connector.close();
  }
}
