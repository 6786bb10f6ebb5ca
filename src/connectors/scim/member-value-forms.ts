import type { ScimConnectorSettings } from './scim-settings';

/**
 * A member value in the form member values are compared in: without case. Servers keep
 * member values as they keep userNames, which RFC 7643 compares case-insensitively (`Ada`
 * may be listed as `ada`), and an exact comparison would miss a change the server made.
 * Writes and reconciliation alike compare through it.
 *
 * @example
 * memberValueKey('Ada.Lovelace'); // 'ada.lovelace'
 */
export function memberValueKey(value: string): string {
  return value.toLowerCase();
}

/**
 * The forms a group may hold an account in, the configured one (what additions write) first:
 * the account ID (userName) and the User's SCIM `id`, which RFC 7643 makes `members.value`
 * and which Entra, Okta and admin screens write. A lax server takes both, so one group may
 * hold some members one way and some the other; reads and removals look for both.
 *
 * @example
 * memberValueForms('ada', '2819c2', 'accountId'); // ['ada', '2819c2']
 */
export function memberValueForms(
  accountId: string,
  scimId: string,
  configured: ScimConnectorSettings['memberValue'],
): string[] {
  const [first, second] = configured === 'accountId' ? [accountId, scimId] : [scimId, accountId];
  return second === '' || memberValueKey(first) === memberValueKey(second)
    ? [first]
    : [first, second];
}

/** The first of `values` a member list holds ({@link memberValueKey}), else undefined. */
export function heldAs(
  members: readonly string[] | undefined,
  values: readonly string[],
): string | undefined {
  const listed = new Set(members?.map(memberValueKey));
  return values.find((value) => listed.has(memberValueKey(value)));
}
