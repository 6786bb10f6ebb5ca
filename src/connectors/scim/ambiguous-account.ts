import { ProvisioningError } from '../../domain/errors';

/** How many candidates an ambiguous lookup names at most (the count says how many there are). */
const AMBIGUITY_SHOWN = 10;

/**
 * ACCOUNT_AMBIGUOUS for an account ID that several users hold in other cases, none exactly
 * ("JSmith" and "JSMITH" for "jsmith", on a server that keeps userNames case-sensitive): none
 * of them is known to be the account, so nothing may act on any of them. Names each by
 * userName and id, so that an operator can address the right one.
 *
 * @example
 * throw ambiguousAccount('crm', 'jsmith', [{ id: 'u1', userName: 'JSmith' }, { id: 'u2', userName: 'JSMITH' }]);
 */
export function ambiguousAccount(
  connector: string,
  accountId: string,
  candidates: readonly Record<string, unknown>[],
): ProvisioningError {
  const shown = candidates.slice(0, AMBIGUITY_SHOWN).map((resource) => ({
    id: String(resource.id),
    userName: String(resource.userName),
  }));
  const more = candidates.length - shown.length;
  const list = shown.map((c) => `"${c.userName}" (id ${c.id})`).join(', ');
  return new ProvisioningError(
    'ACCOUNT_AMBIGUOUS',
    `connector "${connector}": account "${accountId}" is ambiguous: ${candidates.length} users have that userName in another case (${list}${more > 0 ? `, and ${more} more` : ''}), none exactly; nothing was done to any of them`,
    { object: accountId, details: { candidates: shown, count: candidates.length } },
  );
}
