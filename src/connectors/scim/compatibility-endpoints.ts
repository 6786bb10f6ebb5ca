import type { ScimConnectorSettings } from './scim-settings';
import type { Evidence } from '../../domain/compatibility-result';
import { isProvisioningError } from '../../domain/errors';
import type { HttpResult } from '../http/transport';
import type { CompatibilitySession } from './compatibility-session';
import { judgeAcceptedCredentials } from './compatibility-credentials';
import { describeStrangers, strangers } from './compatibility-filter-control';
import { attributeFilter } from './filter';
import { declaredFeatures, type DeclaredFeatures } from './declared-features';
import { scimUrl } from './scim-paths';

/** Prefixes under which applications' built-in SCIM services keep `/scim/v2/` (scim-interop.md). */
const USUAL_PREFIXES = ['/api', '/api/auth', '/api/v1', '/api/v2', '/auth'];
/** At most this many other base URLs are tried when the configured one shows no SCIM endpoint. */
const MAX_CANDIDATES = 8;

type Answered = {
  kind: 'scim' | 'refused' | 'absent';
  /** The request that got the answer: the credentials' control sends it again. */
  url: URL;
  answer: HttpResult;
  evidence: Evidence[];
};
type Located = Answered | { kind: 'unreachable'; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A body only a SCIM server writes: one naming a SCIM schema, or a ListResponse. */
export function isScimBody(body: unknown): boolean {
  if (!isObject(body)) return false;
  const schemas = body.schemas;
  if (Array.isArray(schemas) && schemas.some((s) => String(s).startsWith('urn:ietf:params:scim:')))
    return true;
  return Array.isArray(body.Resources) && body.totalResults !== undefined;
}

/** Where the endpoints may be instead: the configured path's parents, then the usual prefixes below it. */
export function candidateBaseUrls(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const given = segments.length === 0 ? '' : `/${segments.join('/')}`;
  const parents = segments.map((_, i) => segments.slice(0, i)).map((s) => `/${s.join('/')}`);
  const paths = [...parents.reverse(), ...USUAL_PREFIXES.map((p) => `${given}${p}`)];
  const unique = [...new Set(paths.map((p) => (p === '/' ? '' : p)))].filter((p) => p !== given);
  return unique.slice(0, MAX_CANDIDATES).map((path) => `${url.origin}${path}`);
}

async function locateAt(s: CompatibilitySession, baseUrl: string): Promise<Located> {
  // Entra's test connection (scim-interop.md): a filter on a value that matches nothing.
  const url = scimUrl(baseUrl, 'Users', undefined, {
    filter: attributeFilter('userName', 'eq', s.testAccount),
  });
  const connector = baseUrl === s.settings.baseUrl ? s.connector : s.connectorWith({ baseUrl });
  try {
    const { result, evidence } = await s.probe('GET', url, connector);
    if (result.status === 401 || result.status === 403)
      return { kind: 'refused', url, answer: result, evidence };
    return { kind: isScimBody(result.body) ? 'scim' : 'absent', url, answer: result, evidence };
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    return { kind: 'unreachable', message: error.message };
  }
}

function answered(result: HttpResult): string {
  const type = result.headers['content-type']?.split(';')[0];
  return `${result.describe} answered ${result.status}${isScimBody(result.body) ? '' : ` (${type ?? 'no content type'}, not a SCIM answer)`}`;
}

/** Point 2 from a refusal: which scheme the server asks for, and what to set. */
function judgeRefusal(
  s: CompatibilitySession,
  located: { answer: HttpResult; evidence: Evidence[] },
): void {
  const { answer, evidence } = located;
  const configured = s.settings.auth.type;
  const challenge = answer.headers['www-authenticate'];
  const asked = challenge?.trim().split(/\s+/)[0]?.toLowerCase();
  const said = `${answer.describe} answered ${answer.status}${challenge === undefined ? '' : ` with WWW-Authenticate: ${challenge}`}`;
  if (asked === 'basic' || asked === 'bearer') {
    if (asked !== configured) {
      s.check(
        2,
        'credentials',
        false,
        `the server asks for ${asked} credentials: ${said}`,
        evidence,
      );
      s.suggest({
        setting: 'auth.type',
        value: asked,
        point: 2,
        tried: false,
        reason:
          asked === 'basic'
            ? 'the server asks for Basic: set auth to { "type": "basic", "username", "passwordSecret" } and run again'
            : 'the server asks for a bearer token: set auth to { "type": "bearer", "tokenSecret" } and run again',
      });
      return;
    }
  } else if (asked !== undefined) {
    s.check(
      2,
      'credentials',
      false,
      `the server asks for "${asked}", a scheme the connector does not have (bearer or Basic only): ${said}`,
      evidence,
    );
    return;
  }
  s.check(
    2,
    'credentials',
    false,
    configured === 'none'
      ? `the server asks for credentials and the connector sends none: ${said}`
      : `the server refused the ${configured} credentials: ${said}`,
    evidence,
  );
}

/** The features the ServiceProviderConfig declares, when it answers as SCIM. */
async function readDeclaredFeatures(s: CompatibilitySession): Promise<DeclaredFeatures> {
  const name = 'read ServiceProviderConfig';
  let spc;
  try {
    spc = await s.probe('GET', scimUrl(s.settings.baseUrl, 'ServiceProviderConfig'));
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    s.note(name, 'failed', error.message);
    return {};
  }
  const { result, evidence } = spc;
  if (result.status !== 200 || !isScimBody(result.body) || !isObject(result.body)) {
    s.note(name, 'failed', answered(result));
    return {};
  }
  s.note(name, 'succeeded');
  s.check(1, 'endpoints', true, 'ServiceProviderConfig answers under /scim/v2/', evidence);
  return declaredFeatures(result.body);
}

/**
 * Points 1 and 2: where the SCIM endpoints answer and whether the credentials are accepted.
 * When the configured base URL shows no SCIM endpoint, the usual places are tried and the
 * run goes on with the one that answers (suggested: `baseUrl`). Answers the features the
 * server declares, or undefined when the run cannot go on (nothing found, credentials
 * refused, server unreachable).
 */
export async function locateEndpoints(
  s: CompatibilitySession,
): Promise<DeclaredFeatures | undefined> {
  const configured: ScimConnectorSettings['baseUrl'] = s.settings.baseUrl;
  let located = await locateAt(s, configured);
  if (located.kind === 'unreachable') {
    s.note('search the test account (userName eq)', 'failed', located.message);
    s.check(1, 'endpoints', undefined, `the server could not be reached: ${located.message}`, []);
    s.stopped = 'the server could not be reached (point 1)';
    return undefined;
  }
  s.note(
    'search the test account (userName eq)',
    located.kind === 'scim' ? 'succeeded' : 'failed',
    located.kind === 'scim' ? '' : answered(located.answer),
  );
  if (located.kind === 'absent') {
    s.check(
      1,
      'endpoints',
      false,
      `no SCIM endpoint under ${configured}/scim/v2/: ${answered(located.answer)}`,
      located.evidence,
    );
    const tried: string[] = [];
    let found: { baseUrl: string; located: Answered } | undefined;
    for (const candidate of candidateBaseUrls(configured)) {
      tried.push(candidate);
      const there = await locateAt(s, candidate);
      // A refusal counts only when it is a SCIM answer: an application may refuse every path.
      if (there.kind === 'scim' || (there.kind === 'refused' && isScimBody(there.answer.body))) {
        found = { baseUrl: candidate, located: there };
        break;
      }
    }
    if (found === undefined) {
      s.note('look for the SCIM endpoints elsewhere', 'failed', `tried ${tried.join(', ')}`);
      s.check(
        1,
        'endpoints',
        undefined,
        `no SCIM endpoint under /scim/v2/ below ${tried.join(', ')} either`,
        [],
      );
      s.stopped = 'no SCIM endpoint was found (point 1)';
      return undefined;
    }
    located = found.located;
    s.note(
      'look for the SCIM endpoints elsewhere',
      'succeeded',
      `found under ${found.baseUrl}/scim/v2/`,
    );
    s.suggest({
      setting: 'baseUrl',
      value: found.baseUrl,
      point: 1,
      tried: true,
      reason: `the SCIM endpoints answer under ${found.baseUrl}/scim/v2/ (spec: the base URL is the part before /scim/v2/)`,
    });
    s.check(
      1,
      'endpoints',
      true,
      `the SCIM endpoints answer under ${found.baseUrl}/scim/v2/: ${answered(located.answer)}`,
      located.evidence,
      { setting: 'baseUrl', value: found.baseUrl },
    );
    s.use({ baseUrl: found.baseUrl });
  } else if (located.kind === 'scim' || isScimBody(located.answer.body)) {
    s.check(
      1,
      'endpoints',
      true,
      `the Users endpoint answers under /scim/v2/: ${answered(located.answer)}`,
      located.evidence,
    );
  }
  if (located.kind === 'scim') {
    // Entra's check is also a negative control: no account has the test account's name yet.
    const found = strangers(located.answer.body, 'userName', 'eq', s.testAccount);
    if (found.length > 0) {
      s.check(
        4,
        'eq',
        false,
        `userName eq "${s.testAccount}" answered ${describeStrangers(found)} before the test ` +
          `account existed: the server ignores the filter`,
        located.evidence,
      );
    }
  }
  if (located.kind === 'refused') {
    judgeRefusal(s, located);
    if (!isScimBody(located.answer.body)) {
      s.check(
        1,
        'endpoints',
        undefined,
        'every call was refused, so whether SCIM answers there could not be seen',
        [],
      );
    }
    s.stopped = 'the server refused the credentials (point 2)';
    return undefined;
  }
  await judgeAcceptedCredentials(s, {
    url: located.url,
    status: located.answer.status,
    evidence: located.evidence,
  });
  return readDeclaredFeatures(s);
}
