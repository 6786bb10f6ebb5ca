/** The connector settings that name a Key Vault secret (src/config/connector-settings.ts). */
export const SECRET_NAME_FIELDS = new Set(['tokenSecret', 'passwordSecret', 'clientSecretName']);

/** Every secret name in connector settings, in order of appearance. */
export function secretNamesIn(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    SECRET_NAME_FIELDS.has(key) && typeof inner === 'string' ? [inner] : secretNamesIn(inner),
  );
}
