import type { Connector } from '../connectors/connector';
import { expiryNotice } from '../domain/credential-expiry';
import { isProvisioningError } from '../domain/errors';
import type { Logger } from '../domain/logger';

/**
 * The notices a request is accepted with: its connector's credential expires within 30
 * days, or has expired (its first call then meets GRAPH_CLIENT_SECRET_EXPIRED: the connector
 * is quarantined and the request held, or fails with that code where quarantine is off). A
 * secret store that cannot tell adds nothing; the operator log says why.
 */
export async function credentialNotices(connector: Connector, logger: Logger): Promise<string[]> {
  if (connector.credentialState === undefined) return [];
  try {
    const notice = expiryNotice(connector.name, await connector.credentialState());
    return notice === undefined ? [] : [notice];
  } catch (error) {
    logger.warn(
      `connector ${connector.name}: the credential's expiry could not be read (${isProvisioningError(error) ? error.code : 'unexpected failure'})`,
      { connector: connector.name },
    );
    return [];
  }
}
