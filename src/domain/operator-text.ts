import { ProvisioningError } from './errors';

/**
 * Text an operator gives with an action (a reason, an id), trimmed; throws REQUEST_INVALID
 * naming `what` when it is empty, longer than `max` or holds control characters (it is kept,
 * and shown in reports and the console).
 *
 * @example
 * operatorText('the reason to link account "ada"', ' HR-1234 ', 300); // 'HR-1234'
 */
export function operatorText(what: string, text: string, max: number, object?: string): string {
  const trimmed = text.trim();
  if (trimmed !== '' && trimmed.length <= max && !/\p{Cc}/u.test(trimmed)) return trimmed;
  throw new ProvisioningError(
    'REQUEST_INVALID',
    `${what} must be 1 to ${max} characters of text, no control characters`,
    object === undefined ? {} : { object },
  );
}
