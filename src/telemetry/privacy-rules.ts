import { isSecretName } from '../domain/secret-names';
import { SPAN_ATTRIBUTES } from './tracing';

/**
 * What leaves the process as telemetry (issue 19): no secret, password, token or
 * Authorization header, ever; account IDs only when TELEMETRY_ACCOUNT_IDS allows them. The
 * service's own spans and logs are written that way; these rules catch what libraries add
 * (the HTTP instrumentation: URLs of Key Vault and Entra ID calls) and
 * whatever slips through, in the last processor before Application Insights.
 */
export interface PrivacyOptions {
  /** TELEMETRY_ACCOUNT_IDS: account IDs (personal data) may be exported. */
  accountIds: boolean;
}

/** Attribute keys that hold an account ID. */
const ACCOUNT_KEYS = new Set<string>([SPAN_ATTRIBUTES.accountId, 'accountId']);

/** Attribute keys whose text is an error's message, which may name an account. */
const MESSAGE_KEYS = new Set(['exception.message']);

/**
 * An account named in text as the service's messages name it: `account "jane.doe"`,
 * `account ID "..."`, `user "..."`, `userName "..."` (errors, notices, log lines).
 */
const ACCOUNT_TEXT = /\b(account(?: ?ID)?|user(?:Name|PrincipalName)?)(\s*[:=]?\s*)"[^"]*"/gi;

/**
 * Text with the accounts it names replaced, unless account IDs may be exported: log lines
 * and error messages name the account they are about.
 *
 * @example
 * redactAccountText('account "jane.doe" not found', { accountIds: false });
 * // 'account "[account]" not found'
 */
export function redactAccountText(text: string, options: PrivacyOptions): string {
  if (options.accountIds || !text.includes('"')) return text;
  return text.replace(
    ACCOUNT_TEXT,
    (_match, word: string, gap: string) => `${word}${gap}"[account]"`,
  );
}

/** Attribute keys that hold a URL, its path or its query. */
const URL_KEYS = new Set(['url.full', 'http.url', 'url.original', 'http.target']);
const PATH_KEYS = new Set(['url.path']);
const QUERY_KEYS = new Set(['url.query']);

/** Credentials as they appear in text: HTTP credentials, JWTs, form and query secrets. */
const SECRET_TEXT: readonly RegExp[] = [
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  /\b(client_secret|client_assertion|password|code|sig|access_token|refresh_token)=[^&\s"']+/gi,
];

/**
 * What every pattern of SECRET_TEXT needs in the text (a scheme, a JWT's start or an `=`):
 * text without any of them is returned as it is, without running the patterns. Spans end by
 * the dozen per request, nearly all their values without any of these.
 */
const MAY_SHOW_SECRET = /bearer|basic|eyJ|=/i;

/** Text with every credential it shows replaced. */
export function redactSecretText(text: string): string {
  if (!MAY_SHOW_SECRET.test(text)) return text;
  let out = text;
  for (const pattern of SECRET_TEXT) {
    out = out.replace(pattern, (match: string) => {
      const equals = match.indexOf('=');
      if (equals > 0 && !/^(Bearer|Basic)\s/i.test(match))
        return `${match.slice(0, equals)}=[redacted]`;
      const space = match.search(/\s/);
      return space > 0 && space < 7 ? `${match.slice(0, space)} [redacted]` : '[redacted]';
    });
  }
  return out;
}

/**
 * A URL as it may be exported: never its query (function keys, SAS signatures, filters on
 * names); its path only when account IDs may be exported, else the first segment (a table,
 * `secrets`) without the keys a table address carries in parentheses.
 *
 * @example
 * redactUrl("https://st.table.core.windows.net/AccountLinks(PartitionKey='hr',RowKey='jane')?sig=x", { accountIds: false });
 * // 'https://st.table.core.windows.net/AccountLinks(…)'
 */
export function redactUrl(value: string, options: PrivacyOptions): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // A path and query without an origin (http.target).
    return redactPath(value.split('?')[0] ?? '', options);
  }
  url.username = '';
  url.password = '';
  return `${url.origin}${redactPath(url.pathname, options)}`;
}

function redactPath(path: string, options: PrivacyOptions): string {
  if (options.accountIds) return path;
  const segments = path.split('/').filter((segment) => segment !== '');
  const first = segments[0];
  if (first === undefined) return '/';
  const head = first.includes('(') ? `${first.slice(0, first.indexOf('('))}(…)` : first;
  return segments.length > 1 ? `/${head}/…` : `/${head}`;
}

/** What the rules do with an attribute, by its key alone. */
type KeyRule = 'drop' | 'account' | 'url' | 'path' | 'message' | 'text';

/**
 * The rule of each key seen so far: attribute keys are the few names the service and its
 * libraries use, so each key is classified once (bounded, in case some library makes keys
 * up).
 */
const KEY_RULES = new Map<string, KeyRule>();
const KEY_RULES_MAX = 1_000;

function keyRule(key: string): KeyRule {
  let rule = KEY_RULES.get(key);
  if (rule !== undefined) return rule;
  rule =
    isSecretName(key) || QUERY_KEYS.has(key)
      ? 'drop'
      : ACCOUNT_KEYS.has(key)
        ? 'account'
        : URL_KEYS.has(key)
          ? 'url'
          : PATH_KEYS.has(key)
            ? 'path'
            : MESSAGE_KEYS.has(key)
              ? 'message'
              : 'text';
  if (KEY_RULES.size < KEY_RULES_MAX) KEY_RULES.set(key, rule);
  return rule;
}

/**
 * The attributes as they may be exported, changed in place: credential keys and (unless
 * allowed) account IDs removed, URLs reduced, credentials in text redacted.
 */
export function scrubAttributes(
  attributes: Record<string, unknown>,
  options: PrivacyOptions,
): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    const rule = keyRule(key);
    if (rule === 'drop' || (rule === 'account' && !options.accountIds)) {
      delete attributes[key];
      continue;
    }
    const value = attributes[key];
    if (typeof value === 'string') {
      const reduced =
        rule === 'url'
          ? redactUrl(value, options)
          : rule === 'path'
            ? redactPath(value, options)
            : rule === 'message'
              ? redactAccountText(value, options)
              : value;
      const redacted = redactSecretText(reduced);
      if (redacted !== value) attributes[key] = redacted;
    } else if (Array.isArray(value)) {
      attributes[key] = value.map((item: unknown) =>
        typeof item === 'string' ? redactSecretText(item) : item,
      );
    }
  }
}
