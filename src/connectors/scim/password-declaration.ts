import { ProvisioningError } from '../../domain/errors';

/** How a server that declares `changePassword: false` treats a password (scim-interop.md). */
const DECLARED =
  'the server declares changePassword: false (ServiceProviderConfig), and such servers answer ' +
  'a password write 2xx while ignoring it';

/**
 * Why a set password is refused before it is sent: the server's 2xx would be no evidence
 * (DESIGN invariant 11). Names the connector and the account, never the password.
 */
export function passwordChangeNotDeclared(connector: string, accountId: string): ProvisioningError {
  return new ProvisioningError(
    'OPERATION_NOT_SUPPORTED',
    `connector "${connector}": setPassword for account "${accountId}" was not sent: ${DECLARED}, ` +
      'so its answer could not tell whether the password was set',
    { object: accountId },
  );
}

/** The notice on a create that carried a password to such a server. */
export function passwordMayBeIgnored(connector: string, accountId: string): string {
  return (
    `connector "${connector}": the password given with account "${accountId}" may have been ` +
    `ignored: ${DECLARED} (a password cannot be read back to tell)`
  );
}
