import { earliestExpiry, type CredentialExpiry } from '../../domain/credential-expiry';
import { ProvisioningError } from '../../domain/errors';
import type { SecretStore } from '../../secrets/secret-store';
import type { GraphConnectorSettings } from './graph-settings';

/**
 * When the connector's client secret expires: the earlier of the secret's own expiry in the
 * secret store (Key Vault `expiresOn`) and the connector's `clientSecretExpiresOn`;
 * undefined when neither says.
 */
export async function clientSecretExpiry(
  settings: Pick<GraphConnectorSettings, 'clientSecretName' | 'clientSecretExpiresOn'>,
  secrets: SecretStore,
): Promise<CredentialExpiry | undefined> {
  const stored = await secrets.expiresOn?.(settings.clientSecretName);
  return earliestExpiry([
    stored === undefined ? undefined : { expiresOn: stored.toISOString(), source: 'secret store' },
    settings.clientSecretExpiresOn === undefined
      ? undefined
      : { expiresOn: new Date(settings.clientSecretExpiresOn).toISOString(), source: 'setting' },
  ]);
}

/**
 * GRAPH_CLIENT_SECRET_EXPIRED naming the connector: a secret known to have expired is not
 * sent to the authority (it would answer invalid_client after the round trip).
 */
export function clientSecretExpired(
  settings: Pick<GraphConnectorSettings, 'name' | 'clientSecretName'>,
  expiry: CredentialExpiry,
): ProvisioningError {
  return new ProvisioningError(
    'GRAPH_CLIENT_SECRET_EXPIRED',
    `connector "${settings.name}": its client secret "${settings.clientSecretName}" expired on ` +
      `${expiry.expiresOn} (as its ${expiry.source} says): add a new secret to the app ` +
      'registration and store it under the same name',
    {
      object: settings.name,
      details: { expiresOn: expiry.expiresOn, source: expiry.source },
    },
  );
}
