import type { Connector } from '../connectors/connector';
import { expiryNotice } from '../domain/credential-expiry';
import { isProvisioningError } from '../domain/errors';
import type { Logger } from '../domain/logger';

/**
 * The notices a request is accepted with: its connector's credential expires within 30
 * days, or has expired (the request then fails with GRAPH_CLIENT_SECRET_EXPIRED at its
 * first call). A secret store that cannot tell adds nothing; the operator log says why.
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
