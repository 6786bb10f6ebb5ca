import type { HttpResult } from '../http/transport';

/**
 * What is wrong with a 2xx answer to `POST /Users` (RFC 7644 §3.3: 201 with the created
 * resource), after "the target created the account but": undefined when it carries a user
 * with an `id` and a `userName`.
 *
 * @example
 * createAnswerFault({ status: 201, body: { userName: 'jane' }, text: '{...}' }); // 'answered without an id'
 */
export function createAnswerFault(
  result: Pick<HttpResult, 'status' | 'body' | 'text'>,
): string | undefined {
  const { body } = result;
  if (body === undefined) {
    return result.text.trim() === ''
      ? `answered ${result.status} without a body`
      : `answered ${result.status} with a body that is not JSON`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return `answered ${result.status} with something that is not a user`;
  }
  const user = body as Record<string, unknown>;
  if (typeof user.id !== 'string' || user.id === '') return 'answered without an id';
  if (typeof user.userName !== 'string') return 'answered without a userName';
  return undefined;
}
