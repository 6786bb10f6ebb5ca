const REDACTED = '[redacted]';

/**
 * Replaces every occurrence of the given secret values in a text. Used on everything a
 * target says back before it reaches an error message or a log: servers do echo
 * credentials and passwords in their error details, and inside a JSON text they write them
 * escaped as their JSON library does: PHP's `\/` and `\u00fc`, Python's `\u00fc`, or any
 * character as `\uXXXX`, mixed with plain ones. Every such spelling is taken out.
 *
 * @example
 * redactSecrets('token abc123 refused', ['abc123']); // 'token [redacted] refused'
 * redactSecrets('{"m":"a\\/b\\u00fcc1 weak"}', ['a/büc1']); // '{"m":"[redacted] weak"}'
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Without a backslash no escape can spell a secret: the plain search is enough.
  const escapes = text.includes('\\');
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    if (escapes) out = out.replace(escapedForms(secret), REDACTED);
  }
  return out;
}

/** Short JSON escapes (RFC 8259 §7) besides `\uXXXX`. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

const FORMS_KEPT = 64;
const formsCache = new Map<string, RegExp>();

/**
 * A pattern matching the secret as any JSON string literal may spell it: each UTF-16 code
 * unit plain, as `\uXXXX` (hex in either case) or by its short escape. Kept per secret (a
 * few: a connector's credentials and a request's password).
 */
function escapedForms(secret: string): RegExp {
  let pattern = formsCache.get(secret);
  if (pattern !== undefined) return pattern;
  let source = '';
  for (let i = 0; i < secret.length; i++) {
    const unit = secret[i]!;
    const code = secret.charCodeAt(i);
    const hex = [...code.toString(16).padStart(4, '0')]
      .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
      .join('');
    const spellings = [unit.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'), `\\\\u${hex}`];
    const short = SHORT_ESCAPES[unit];
    if (short !== undefined) spellings.push(short.replace(/\\/g, '\\\\'));
    source += `(?:${spellings.join('|')})`;
  }
  pattern = new RegExp(source, 'g');
  if (formsCache.size >= FORMS_KEPT) formsCache.clear();
  formsCache.set(secret, pattern);
  return pattern;
}

/**
 * The same for a parsed answer: every string in it, at any depth (a server's error detail
 * that echoes a password stays a secret when a mapper quotes it).
 *
 * @example
 * redactValue({ detail: 'bad password s3cret!' }, ['s3cret!']); // { detail: 'bad password [redacted]' }
 */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        redactSecrets(key, secrets),
        redactValue(item, secrets),
      ]),
    );
  }
  return value;
}

/** A URL fit for a message: no user-info, no fragment. Query kept (filters name the object). */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}${url.search}`;
}

/**
 * A target's text fit for one line of a message: whitespace folded, at most `max` characters.
 *
 * @example
 * oneLine('Invalid\n  filter', 300); // 'Invalid filter'
 */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}...` : line;
}
