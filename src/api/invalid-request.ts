import type { HttpResponseInit } from '@azure/functions';
import { problem } from './http-problem';

/** A request refused for attributes its connector does not write (ATTRIBUTE_NOT_MAPPED). */
export interface UnmappedAttributes {
  connector: string;
  attributes: string[];
  /** One per attribute, at `account.attributes.<name>`, as REQUEST_INVALID's problems are. */
  problems: { path: string; message: string }[];
}

/**
 * A provisioning request refused before anything was stored or started: every problem of its
 * body (REQUEST_INVALID), or, in a valid body, the attributes its connector does not write
 * (ATTRIBUTE_NOT_MAPPED).
 */
export interface InvalidRequest {
  kind: 'invalid';
  problems: { path: string; message: string }[];
  unmapped?: UnmappedAttributes;
}

/**
 * The 400 answer of a refused request: its code, a message naming what is wrong, `problems`
 * with the path of each; for unmapped attributes also `connector` and `attributes`.
 */
export function invalidRequestAnswer(invalid: InvalidRequest): HttpResponseInit {
  const { unmapped, problems } = invalid;
  if (unmapped === undefined) {
    return problem(400, 'REQUEST_INVALID', `invalid request: ${problems.length} problem(s)`, {
      problems,
    });
  }
  const names = unmapped.attributes.map((name) => `"${name}"`).join(', ');
  return problem(
    400,
    'ATTRIBUTE_NOT_MAPPED',
    `connector "${unmapped.connector}" does not write attribute(s) ${names}: its Mapping does not name them, so nothing was started`,
    {
      object: unmapped.connector,
      connector: unmapped.connector,
      attributes: unmapped.attributes,
      problems,
    },
  );
}
