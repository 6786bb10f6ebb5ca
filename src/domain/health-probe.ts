import type { ErrorCode } from './errors';

/**
 * What a quarantine probe saw (issue 14, DESIGN invariant 11): `healthy` only on the target's
 * own answer to the probe, in its protocol's shape (a SCIM ListResponse, a Graph collection);
 * otherwise why not, with the code of what it was (a 429 is TARGET_THROTTLED, a 403
 * TARGET_FORBIDDEN, a gateway's HTML page TARGET_RESPONSE_INVALID). `seen` names the call
 * and its answer: the connector's state shows it.
 */
export type HealthProbe =
  { healthy: true; seen: string } | { healthy: false; code: ErrorCode; seen: string };

/** The content type of an answer, as a message shows it. */
export function contentTypeOf(headers: Record<string, string>): string {
  return headers['content-type']?.split(';')[0]?.trim() || 'no content type';
}

/**
 * A probe's answer that is not a healthy one, by its status: the code the connector's state
 * keeps and the words that say why it does not show the target healthy.
 *
 * @example
 * unhealthyAnswer(429, 'GET /scim/v2/Users?... answered 429'); // TARGET_THROTTLED, "... throttled ..."
 */
export function unhealthyAnswer(status: number, said: string): HealthProbe & { healthy: false } {
  if (status === 401) {
    return {
      healthy: false,
      code: 'TARGET_AUTH_FAILED',
      seen: `${said}: the credentials are still refused`,
    };
  }
  if (status === 403) {
    return {
      healthy: false,
      code: 'TARGET_FORBIDDEN',
      seen: `${said}: refused, so the target is not shown to serve the service`,
    };
  }
  if (status === 429) {
    return {
      healthy: false,
      code: 'TARGET_THROTTLED',
      seen: `${said}: throttled, so the target is not shown healthy yet`,
    };
  }
  if (status >= 500) {
    return { healthy: false, code: 'TARGET_UNAVAILABLE', seen: `${said}: the target still fails` };
  }
  return {
    healthy: false,
    code: 'TARGET_RESPONSE_INVALID',
    seen: `${said}: not the target's own answer to the probe (a gateway or proxy in front of it, or the wrong base URL)`,
  };
}
