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
  }
  return out;
}

/** A URL fit for a message: no user-info, no fragment. Query kept (filters name the object). */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}${url.search}`;
}
