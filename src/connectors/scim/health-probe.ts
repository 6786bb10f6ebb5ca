import type { ScimConnectorSettings } from './scim-settings';
import { contentTypeOf, unhealthyAnswer, type HealthProbe } from '../../domain/health-probe';
import type { HttpResult } from '../http/transport';
import { isNotFoundAnswer, type NotFoundAnswer } from './not-found-answer';
import { attributeFilter } from './filter';
import type { ScimHttp } from './scim-http';
import { scimUrl } from './scim-paths';

/** The account ID the probe looks up: no one has it. */
export const PROBE_ACCOUNT_ID = 'provisioning-quarantine-probe';

function isListResponse(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { Resources, totalResults } = body as Record<string, unknown>;
  return (
    (Array.isArray(Resources) || Resources === undefined) &&
    totalResults !== undefined &&
    Number.isFinite(Number(totalResults))
  );
}

/**
 * Whether an answer to the probe's search is the SCIM server's own, healthy one: 200 with a
 * ListResponse (RFC 7644 §3.4.2), or a 404 with a SCIM error (servers that answer an empty
 * filter so, scim-interop.md). A 429, a 403, a gateway's HTML 404 or a 200 page that is not
 * SCIM show nothing of the server's health.
 *
 * @example
 * judgeScimProbe(result).healthy; // true for 200 { totalResults: 0, Resources: [] }
 */
export function judgeScimProbe(
  result: HttpResult,
  notFoundAnswer: NotFoundAnswer = 'scimError',
): HealthProbe {
  const said = `${result.describe} answered ${result.status}`;
  if (result.status === 200 && isListResponse(result.body)) {
    return { healthy: true, seen: `${said} with a SCIM ListResponse` };
  }
  // The server's own "not found", in the shape the connector is set to take (`notFoundAnswer`).
  if (result.status === 404 && isNotFoundAnswer(result, notFoundAnswer)) {
    return {
      healthy: true,
      seen: `${said} with its own not-found answer (to a filter that matches nothing)`,
    };
  }
  if (result.status < 300) {
    return unhealthyAnswer(
      404,
      `${said} (${contentTypeOf(result.headers)}, not a SCIM ListResponse)`,
    );
  }
  return unhealthyAnswer(
    result.status,
    result.status === 404 ? `${said} (${contentTypeOf(result.headers)}, not a SCIM error)` : said,
  );
}

/** The quarantine probe of a SCIM connector: Entra's test connection, a search nothing matches. */
export async function probeScimHealth(
  settings: ScimConnectorSettings,
  http: ScimHttp,
): Promise<HealthProbe> {
  const url = scimUrl(settings.baseUrl, 'Users', undefined, {
    filter: attributeFilter('userName', 'eq', PROBE_ACCOUNT_ID),
  });
  return judgeScimProbe(await http.probe('GET', url), settings.notFoundAnswer);
}
