import { isSecretName } from '../domain/secret-names';
import { redactSecretText } from '../telemetry/privacy-rules';

/** What the poison queue's copy of a bulk message holds instead of a credential. */
export const REDACTED = '[redacted]';
const WITHHELD = '[not JSON; withheld because it may contain a secret]';

/**
 * A bulk message as the poison queue may keep it: the value of every key that names a
 * credential (password, secret, token, credential... in any case, at any depth, in arrays
 * too) replaced, and credentials written into text (`Bearer ...`, `password=...`) redacted.
 * A message that is not JSON cannot be searched by key: it is withheld when it mentions a
 * credential, so a cut-off JSON text never carries its password into the poison queue.
 *
 * @example
 * redactBulkMessage([{ account: { attributes: { Password: 'p' } } }]);
 * // [{ account: { attributes: { Password: '[redacted]' } } }]
 */
export function redactBulkMessage(message: unknown): unknown {
  if (typeof message === 'string') {
    const parsed = parseJson(message);
    if (parsed !== undefined) return redactValue(parsed);
    return isSecretName(message) ? WITHHELD : redactSecretText(message);
  }
  return redactValue(message);
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecretText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      isSecretName(key) ? REDACTED : redactValue(item),
    ]),
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
