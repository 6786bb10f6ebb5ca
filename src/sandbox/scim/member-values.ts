import { scimError } from './scim-error.js';
import type { ScimMember, ScimStore } from './scim-store.js';
import type { ScimQuirks } from './types.js';

/**
 * Reads a PATCH/POST `members` value (one object or an array of `{ value }`) into members.
 * Throws 400 `invalidValue` for anything else.
 *
 * @example
 * toMembers([{ value: 'alice' }]); // [{ value: 'alice' }]
 */
export function toMembers(value: unknown): ScimMember[] {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    const memberValue = (item as { value?: unknown } | null)?.value;
    if (typeof memberValue !== 'string' || memberValue.length === 0) {
      throw scimError(400, 'invalidValue', "Each member needs a non-empty string 'value'");
    }
    return { ...(item as object), value: memberValue };
  });
}

/**
 * Enforces quirk `memberRemovalsMustBeInternalIds` on the member values a removal names.
 *
 * @example
 * checkRemovedValues(['ada'], store, { memberRemovalsMustBeInternalIds: true }); // throws 400 invalidValue
 */
export function checkRemovedValues(
  values: readonly string[],
  store: ScimStore,
  quirks: ScimQuirks,
): void {
  if (quirks.memberRemovalsMustBeInternalIds !== true) return;
  const named = values.find((value) => !store.isUserId(value));
  if (named !== undefined) {
    throw scimError(
      400,
      'invalidValue',
      `Member value '${named}' is not the id of a user on this server and cannot be removed`,
    );
  }
}

/**
 * Enforces quirk `memberValuesMustBeInternalIds`: by default any string is accepted, as the
 * spec's default member value is the account ID (spec: Groups); servers that demand their own
 * ids refuse the rest (scim-interop.md, compatibility point 3).
 */
export function checkMemberValues(members: unknown, store: ScimStore, quirks: ScimQuirks): void {
  if (quirks.memberValuesMustBeInternalIds !== true || members === undefined) return;
  for (const member of toMembers(members)) {
    if (!store.isUserId(member.value)) {
      throw scimError(
        400,
        'invalidValue',
        `Member value '${member.value}' is not the id of a user on this server`,
      );
    }
  }
}
