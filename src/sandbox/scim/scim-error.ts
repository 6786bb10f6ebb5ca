import { SCIMMY } from 'scimmy-routers';

/** RFC 7644 §3.12 error message schema. */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The SCIM error body of RFC 7644 §3.12: `status` is a string. */
export interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA];
  status: string;
  scimType?: string;
  detail?: string;
}

/**
 * A SCIMMY error (scimmy's handlers must throw this type, or its router answers 404).
 *
 * @example
 * throw scimError(409, 'uniqueness', 'userName "bob" is already taken');
 */
export function scimError(status: number, scimType: string | null, detail: string): Error {
  return new SCIMMY.Types.Error(status, scimType as string, detail);
}

/** Builds an RFC 7644 §3.12 error body for any status, including 429 and 5xx. */
export function scimErrorBody(
  status: number,
  scimType: string | undefined,
  detail: string,
): ScimErrorBody {
  return {
    schemas: [ERROR_SCHEMA],
    status: String(status),
    ...(scimType === undefined || scimType === '' ? {} : { scimType }),
    detail,
  };
}

/** Status, scimType and detail of anything thrown while serving a request. */
export function describeThrown(error: unknown): {
  status: number;
  scimType?: string;
  detail: string;
} {
  if (error instanceof SCIMMY.Types.Error) {
    const scimType =
      typeof error.scimType === 'string' && error.scimType !== '' ? error.scimType : undefined;
    return {
      status: error.status,
      ...(scimType === undefined ? {} : { scimType }),
      detail: error.message,
    };
  }
  // express.json() raises SyntaxError with status 400 for a body that is not JSON.
  const status = (error as { status?: unknown } | null)?.status;
  if (status === 400)
    return { status, scimType: 'invalidSyntax', detail: 'Request body is not valid JSON' };
  if (typeof status === 'number' && status > 400 && status < 500)
    return { status, detail: 'Request refused' };
  return { status: 500, detail: 'Internal server error' };
}
