import { ProvisioningError } from '../domain/errors';
import type { StepCommit } from './account-state';

/** Table Storage's limit on one entity, keys and properties together. */
export const MAX_ENTITY_BYTES = 1024 * 1024;

/**
 * What an entity weighs against {@link MAX_ENTITY_BYTES}, by the formula of "Understanding
 * the Table service data model" (Azurite does not enforce the limit, so the store does):
 * 4 bytes, the keys in UTF-16, and each property's name in UTF-16 with 8 bytes more and
 * its value (strings in UTF-16 with 4 bytes more; numbers and booleans 8).
 */
export function entityBytes(entity: Record<string, unknown>): number {
  let bytes = 4;
  for (const [name, value] of Object.entries(entity)) {
    if (value === undefined) continue;
    if (name === 'partitionKey' || name === 'rowKey') {
      bytes += 2 * (typeof value === 'string' ? value.length : 0) + 2;
      continue;
    }
    bytes += 8 + 2 * name.length + (typeof value === 'string' ? 2 * value.length + 4 : 8);
  }
  return bytes;
}

/** Whether Table Storage takes the entity (Azurite does not check the 1 MiB limit). */
export function fits(entity: Record<string, unknown>): boolean {
  return entityBytes(entity) <= MAX_ENTITY_BYTES;
}

/** The error for a record too large to store: the commit's entries are written by then. */
export function tooLarge(commit: StepCommit, entity: Record<string, unknown>): ProvisioningError {
  return new ProvisioningError(
    'ACCOUNT_RECORD_TOO_LARGE',
    `account "${commit.accountId}" on connector "${commit.connector}": its record would take ` +
      `${entityBytes(entity)} bytes, more than Table Storage's ${MAX_ENTITY_BYTES} per entity; ` +
      `the step's ${commit.entries.length} journal entries are written, the record is not updated`,
    { object: commit.accountId },
  );
}
