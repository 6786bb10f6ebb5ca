import { RETENTION_DAYS } from './secret-vault.js';
import type { DeletedSecret, StoredSecret, StoredSecretVersion } from './secret-vault.js';

const seconds = (ms: number): number => Math.floor(ms / 1000);

function attributes(version: StoredSecretVersion): Record<string, unknown> {
  return {
    enabled: version.enabled,
    ...(version.notBefore === undefined ? {} : { nbf: seconds(version.notBefore) }),
    ...(version.expires === undefined ? {} : { exp: seconds(version.expires) }),
    created: seconds(version.created),
    updated: seconds(version.updated),
    // Soft-delete with purge protection, as the production vault is configured.
    recoveryLevel: 'Recoverable',
    recoverableDays: RETENTION_DAYS,
  };
}

/** Key Vault's `SecretBundle`: the value, its id `<vault>/secrets/<name>/<version>`, attributes. */
export function secretBundle(
  vaultUrl: string,
  secret: StoredSecret,
  version: StoredSecretVersion,
): Record<string, unknown> {
  return {
    value: version.value,
    id: `${vaultUrl}/secrets/${secret.name}/${version.version}`,
    ...(version.contentType === undefined ? {} : { contentType: version.contentType }),
    ...(version.tags === undefined ? {} : { tags: version.tags }),
    attributes: attributes(version),
  };
}

/**
 * Key Vault's `DeletedSecretBundle` for DELETE and GET /deletedsecrets: the latest
 * version's id and attributes plus the recovery fields, without the value.
 */
export function deletedSecretBundle(
  vaultUrl: string,
  deleted: DeletedSecret,
): Record<string, unknown> {
  const latest = deleted.secret.versions.at(-1);
  const name = deleted.secret.name;
  return {
    recoveryId: `${vaultUrl}/deletedsecrets/${name}`,
    deletedDate: seconds(deleted.deletedDate),
    scheduledPurgeDate: seconds(deleted.scheduledPurgeDate),
    id: `${vaultUrl}/secrets/${name}/${latest?.version ?? ''}`,
    ...(latest === undefined ? {} : { attributes: attributes(latest) }),
  };
}

/** Key Vault's `SecretItem` (a list entry): id without version, attributes and tags, never the value. */
export function secretItem(
  vaultUrl: string,
  secret: StoredSecret,
  version: StoredSecretVersion,
): Record<string, unknown> {
  return {
    id: `${vaultUrl}/secrets/${secret.name}`,
    ...(version.contentType === undefined ? {} : { contentType: version.contentType }),
    ...(version.tags === undefined ? {} : { tags: version.tags }),
    attributes: attributes(version),
  };
}
