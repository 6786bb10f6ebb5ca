import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { MAX_BODY_BYTES, problem } from './http-problem';

/**
 * The request body as JSON, or the answer to give: 413 over the size limit, 400 for
 * anything that is not a JSON object. The body is never echoed (it may hold a password).
 */
export async function readJsonBody(
  request: HttpRequest,
  options: { optional?: boolean } = {},
): Promise<{ body: unknown } | { response: HttpResponseInit }> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) return { response: tooLarge() };
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) return { response: tooLarge() };
  if (text.trim() === '') {
    if (options.optional === true) return { body: {} };
    return {
      response: problem(400, 'REQUEST_INVALID', 'the request body is empty: send a JSON object'),
    };
  }
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return {
        response: problem(400, 'REQUEST_INVALID', 'the request body must be a JSON object'),
      };
    }
    return { body };
  } catch {
    return { response: problem(400, 'REQUEST_INVALID', 'the request body is not valid JSON') };
  }
}

function tooLarge(): HttpResponseInit {
  return problem(
    413,
    'REQUEST_TOO_LARGE',
    `the request body is larger than ${MAX_BODY_BYTES} bytes`,
  );
}
