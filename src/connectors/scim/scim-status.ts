import { randomUUID } from 'node:crypto';
import type { ScimConnectorSettings } from './scim-settings';
import { isProvisioningError } from '../../domain/errors';
import type { StatusFinding, StatusResult } from '../connector';
import type { HttpResult } from '../http/transport';
import { attributeFilter } from './filter';
import type { ScimHttp } from './scim-http';
import { scimUrl } from './scim-paths';

/**
 * Spec: Status check: GET `/scim/v2/ServiceProviderConfig`; if that is unavailable, the
 * base URL itself. What was found is recorded as findings (scim-interop.md).
 */
export async function checkScimStatus(
  settings: ScimConnectorSettings,
  http: ScimHttp,
): Promise<StatusResult> {
  const findings: StatusFinding[] = [];
  const done = (ok: boolean, summary: string): StatusResult => ({
    connector: settings.name,
    kind: 'scim',
    ok,
    summary,
    findings,
  });
  try {
    const config = await http.probe('GET', scimUrl(settings.baseUrl, 'ServiceProviderConfig'));
    if (config.status === 401 || config.status === 403) {
      findings.push(authFinding(config, settings.auth.type));
      return done(
        false,
        `the server refused the ${settings.auth.type} credentials (${config.status})`,
      );
    }
    if (config.status === 200 && isObject(config.body)) {
      findings.push({
        name: 'ServiceProviderConfig',
        outcome: 'ok',
        detail: describeFeatures(config.body),
      });
      return done(true, `SCIM server reachable: ${config.describe} answered 200`);
    }
    findings.push({
      name: 'ServiceProviderConfig',
      outcome: 'missing',
      detail: `${config.describe} answered ${config.status}; trying the base URL`,
    });
    const base = await http.probe('GET', new URL(settings.baseUrl));
    if (base.status === 401 || base.status === 403) {
      findings.push(authFinding(base, settings.auth.type));
      return done(
        false,
        `the server refused the ${settings.auth.type} credentials (${base.status})`,
      );
    }
    // A page an application serves at the base URL (HTML, a login form) is reachable, not SCIM:
    // only a JSON answer counts (invariant 11), else the Users endpoint must tell.
    if (base.status < 400 && base.body !== undefined) {
      findings.push({
        name: 'base URL',
        outcome: 'ok',
        detail: `${base.describe} answered ${base.status} with JSON`,
      });
      return done(true, 'SCIM server reachable through its base URL (no ServiceProviderConfig)');
    }
    findings.push({
      name: 'base URL',
      outcome: 'failed',
      detail:
        base.status < 400
          ? `${base.describe} answered ${base.status}, but not with JSON: not a SCIM answer`
          : `${base.describe} answered ${base.status}`,
    });
    // Beyond the spec: Entra's test connection (scim-interop.md), a filter on a value that
    // matches nothing, answered 200 with an empty list (or 404 by some servers).
    const probe = await http.probe(
      'GET',
      scimUrl(settings.baseUrl, 'Users', undefined, {
        filter: attributeFilter('userName', 'eq', `status-check-${randomUUID()}`),
      }),
    );
    if (probe.status === 401 || probe.status === 403) {
      findings.push(authFinding(probe, settings.auth.type));
      return done(
        false,
        `the server refused the ${settings.auth.type} credentials (${probe.status})`,
      );
    }
    // 200 with a list, or a SCIM error body on 404 (some servers answer an empty filter so).
    const ok = (probe.status === 200 || probe.status === 404) && isObject(probe.body);
    findings.push({
      name: 'Users filter',
      outcome: ok ? 'ok' : 'failed',
      detail: `${probe.describe} answered ${probe.status}${isObject(probe.body) ? '' : ' without a JSON body'}`,
    });
    return done(
      ok,
      ok
        ? 'SCIM server reachable: the Users endpoint answers (no ServiceProviderConfig)'
        : `no SCIM answer: ServiceProviderConfig ${config.status}, base URL ${base.status}, Users ${probe.status}`,
    );
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    findings.push({ name: 'connection', outcome: 'failed', detail: error.message });
    return done(false, error.message);
  }
}

function authFinding(result: HttpResult, type: string): StatusFinding {
  return {
    name: 'authentication',
    outcome: 'failed',
    detail: `${result.describe} answered ${result.status} with auth type ${type}`,
  };
}

/** RFC 7643 §5: which features the server says it supports. */
function describeFeatures(body: Record<string, unknown>): string {
  const features = ['patch', 'filter', 'bulk', 'sort', 'etag', 'changePassword'].map((name) => {
    const feature = body[name];
    const supported = isObject(feature) ? feature.supported : undefined;
    return `${name} ${supported === true || supported === 'true' ? 'yes' : supported === undefined ? '?' : 'no'}`;
  });
  return features.join(', ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
