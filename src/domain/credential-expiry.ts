/**
 * When a connector's credential (the Graph client secret) expires, and who says so:
 * `secret store` is the secret's own expiry (Key Vault's `expiresOn`), `setting` the
 * connector's `clientSecretExpiresOn` (for a store that keeps no expiry, or an app
 * registration whose secret ends before the vault says).
 */
export interface CredentialExpiry {
  /** ISO time. */
  expiresOn: string;
  source: 'secret store' | 'setting';
}

/** The expiry as the status check and the health report show it. */
export interface CredentialState extends CredentialExpiry {
  /** Whole days left, rounded down; negative once expired. */
  daysLeft: number;
  expired: boolean;
}

/** Under this many days, every request's status carries a notice (issue 19). */
export const EXPIRY_NOTICE_DAYS = 30;

const DAY_MS = 86_400_000;

/**
 * Days until the credential expires, with their fraction; negative once it has.
 *
 * @example
 * daysUntilExpiry({ expiresOn: '2026-01-11T00:00:00Z', source: 'setting' }, Date.parse('2026-01-01T00:00:00Z')); // 10
 */
export function daysUntilExpiry(expiry: CredentialExpiry, nowMs: number): number {
  return (Date.parse(expiry.expiresOn) - nowMs) / DAY_MS;
}

/**
 * The state shown to the operator: whole days left and whether it has expired.
 *
 * @example
 * credentialState({ expiresOn: '2026-01-11T12:00:00Z', source: 'setting' }, Date.parse('2026-01-01T00:00:00Z')).daysLeft; // 10
 */
export function credentialState(expiry: CredentialExpiry, nowMs: number): CredentialState {
  const days = daysUntilExpiry(expiry, nowMs);
  return { ...expiry, daysLeft: Math.floor(days), expired: days <= 0 };
}

/**
 * The earlier of the expiries that are known: the credential stops working at the first.
 *
 * @example
 * earliestExpiry([undefined, { expiresOn: '2026-03-01T00:00:00Z', source: 'setting' }]); // the setting's
 */
export function earliestExpiry(
  candidates: readonly (CredentialExpiry | undefined)[],
): CredentialExpiry | undefined {
  let earliest: CredentialExpiry | undefined;
  for (const candidate of candidates) {
    if (candidate === undefined || Number.isNaN(Date.parse(candidate.expiresOn))) continue;
    if (earliest === undefined || Date.parse(candidate.expiresOn) < Date.parse(earliest.expiresOn))
      earliest = candidate;
  }
  return earliest;
}

/**
 * The notice a request's status carries while the connector's credential expires in less
 * than {@link EXPIRY_NOTICE_DAYS} days, or has expired; undefined otherwise.
 *
 * @example
 * expiryNotice('entra', { expiresOn: '2026-01-11T12:00:00Z', source: 'secret store', daysLeft: 10, expired: false });
 * // 'the client secret of connector "entra" expires on 2026-01-11 (in 10 days), as its secret store says: ...'
 */
export function expiryNotice(
  connector: string,
  state: CredentialState | undefined,
): string | undefined {
  if (state === undefined || state.daysLeft >= EXPIRY_NOTICE_DAYS) return undefined;
  const expiry = state;
  const day = expiry.expiresOn.slice(0, 10);
  const when = state.expired
    ? `expired on ${day}`
    : `expires on ${day} (in ${state.daysLeft} day${state.daysLeft === 1 ? '' : 's'})`;
  return (
    `the client secret of connector "${connector}" ${when}, as its ${expiry.source} says: ` +
    'add a new secret to the app registration and store it under the same name'
  );
}
