import { sameValue } from '../truth/same-value.js';
import type { TruthChange } from '../truth/truth-event.js';
import type { DirectoryRecord } from './directory-record.js';

/**
 * The truth-log changes a `PATCH /users/{id}` makes to the committed user: one per kind.
 * A password write counts every time (its value cannot be read back); `accountEnabled` and
 * the other properties count only when their value really changes.
 *
 * @example
 * userChangeKinds({ id: 'u', accountEnabled: true, jobTitle: 'Dev' }, { accountEnabled: false, jobTitle: 'Dev' });
 * // ['account locked']
 */
export function userChangeKinds(
  current: DirectoryRecord,
  changes: Record<string, unknown>,
): TruthChange[] {
  const kinds: TruthChange[] = [];
  const updated = Object.entries(changes).some(
    ([property, value]) =>
      property !== 'accountEnabled' &&
      property !== 'passwordProfile' &&
      !sameValue(value, current[property]),
  );
  if (updated) kinds.push('account updated');
  if (changes['passwordProfile'] !== undefined) kinds.push('password set');
  const enabled = changes['accountEnabled'];
  if (typeof enabled === 'boolean' && enabled !== (current['accountEnabled'] !== false)) {
    kinds.push(enabled ? 'account unlocked' : 'account locked');
  }
  return kinds;
}
