const REDACTED = '[redacted]';

/**
 * Replaces every occurrence of the given secret values in a text. Used on everything a
 * target says back before it reaches an error message or a log: servers do echo
 * credentials and passwords in their error details.
 *
 * @example
 * redactSecrets('token abc123 refused', ['abc123']); // 'token [redacted] refused'
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    // Inside a JSON text a secret with `"`, `\\` or a control character is written escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out = out.split(escaped).join(REDACTED);
  }
  return out;
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
      Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets)]),
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
