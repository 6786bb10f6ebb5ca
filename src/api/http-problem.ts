import type { HttpResponseInit } from '@azure/functions';
import type { ErrorCode, SerializedError } from '../domain/errors';

/** An error answer: `{ error: { code, message, ... } }` with the code as the contract. */
export function problem(
  status: number,
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): HttpResponseInit {
  return { status, jsonBody: { error: { code, message, ...extra } } };
}

export function errorResponse(status: number, error: SerializedError): HttpResponseInit {
  return { status, jsonBody: { error } };
}

export function unknownConnector(name: string): HttpResponseInit {
  return problem(404, 'CONNECTOR_NOT_FOUND', `unknown connector "${name}"`, { object: name });
}

/** The largest body the API reads: a request naming 500 groups fits many times over. */
export const MAX_BODY_BYTES = 256 * 1024;
