import type { CredentialState } from '../api-types';
import { formatTime } from '../format';
import { StatusBadge } from './status-badge';

/** Under this many days the page marks a credential as expiring soon (the service's notice). */
const SOON_DAYS = 30;

/** A credential's expiry: the date, the days left and who says so. */
export function CredentialExpiry({ credential }: { credential: CredentialState | undefined }) {
  if (credential === undefined) {
    return (
      <span class="muted">no expiry known (Key Vault expiresOn or clientSecretExpiresOn)</span>
    );
  }
  const state = credential.expired
    ? 'expired'
    : credential.daysLeft < SOON_DAYS
      ? 'expires soon'
      : 'ok';
  return (
    <>
      <StatusBadge status={state} />{' '}
      <time dateTime={credential.expiresOn}>{formatTime(credential.expiresOn)}</time>
      {credential.expired
        ? null
        : ` · ${credential.daysLeft} day${credential.daysLeft === 1 ? '' : 's'} left`}{' '}
      <span class="muted">({credential.source})</span>
    </>
  );
}
