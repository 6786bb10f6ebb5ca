import type { AccountChanges, AccountProfile, SimpleValue } from './account';

/** The part of a profile an update writes: everything but the account ID. */
export function changesOf(profile: AccountProfile): AccountChanges {
  const changes: AccountChanges & { accountId?: string } = { ...profile };
  delete changes.accountId;
  if (changes.attributes !== undefined && Object.keys(changes.attributes).length === 0) {
    delete changes.attributes;
  }
  return changes;
}

/** Whether an update has anything to write. */
export function hasChanges(changes: AccountChanges): boolean {
  return Object.keys(changes).length > 0;
}

export interface ProfileComparison {
  /** Attributes the read shows with another value than was written. */
  differing: string[];
  /** Attributes the target does not read back: the update cannot be checked for them. */
  unreadable: string[];
  /** Attributes the read shows with the value written. */
  shown: string[];
}

/**
 * Compares what an update wrote with what a read shows. Strings compare trimmed and, for
 * e-mail addresses, case-insensitively (targets normalise them); values compare as text.
 *
 * @example
 * compareProfile({ displayName: 'Ada' }, { displayName: 'Ada L.' }); // { differing: ['displayName'], unreadable: [], shown: [] }
 */
export function compareProfile(
  written: AccountChanges,
  seen: AccountChanges | undefined,
): ProfileComparison {
  const differing: string[] = [];
  const unreadable: string[] = [];
  const shown: string[] = [];
  const check = (name: string, want: SimpleValue, got: SimpleValue | undefined, fold = false) => {
    if (got === undefined) unreadable.push(name);
    else if (!sameValue(want, got, fold)) differing.push(name);
    else shown.push(name);
  };
  if (written.displayName !== undefined) {
    check('displayName', written.displayName, seen?.displayName);
  }
  if (written.givenName !== undefined) check('givenName', written.givenName, seen?.givenName);
  if (written.familyName !== undefined) check('familyName', written.familyName, seen?.familyName);
  if (written.email !== undefined) check('email', written.email, seen?.email, true);
  for (const [key, value] of Object.entries(written.attributes ?? {})) {
    check(`attributes.${key}`, value, seen?.attributes?.[key]);
  }
  return { differing, unreadable, shown };
}

function sameValue(want: SimpleValue, got: SimpleValue, fold: boolean): boolean {
  const a = String(want).trim();
  const b = String(got).trim();
  return fold ? a.toLowerCase() === b.toLowerCase() : a === b;
}
