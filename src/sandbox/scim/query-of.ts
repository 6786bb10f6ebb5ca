import type { Request } from 'express';

/**
 * The request's query as sent, one value per name. Express's own `req.query` is parsed with
 * `qs` and rewritten by scimmy-routers (numbers), so SCIM parameters are read from the URL.
 *
 * @example
 * queryOf(req).get('filter'); // 'userName eq "bob"'
 */
export function queryOf(req: Request): URLSearchParams {
  return new URL(req.originalUrl, 'http://sandbox.invalid').searchParams;
}
