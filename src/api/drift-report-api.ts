import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { z } from 'zod';
import { DRIFT_TYPES } from '../domain/drift-finding';
import type { DriftQuery } from '../store/drift-findings';
import type { ApiDeps } from './api-deps';
import { csvAnswer, readAllPages, wantsCsv } from './csv';
import { driftCsv } from './drift-csv';
import { problem, unknownConnector } from './http-problem';
import { describeProblems } from './request-schema';

/** The filters of the drift report; a malformed one is 400 naming the field. */
export const driftFilter = {
  type: z.enum(DRIFT_TYPES, { error: `must be one of ${DRIFT_TYPES.join(', ')}` }).optional(),
  accountId: z.string().min(1).max(256).optional(),
  groupId: z.string().min(1).max(256).optional(),
};

const driftQuery = z.strictObject({
  ...driftFilter,
  status: z.enum(['open', 'closed'], { error: 'must be open or closed' }).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  continuationToken: z.string().min(1).max(4096).optional(),
});

/**
 * `GET /api/connectors/{name}/drift`: the drift report, filtered by type, account, group and
 * status, paged, open findings first and newest first. With `Accept: text/csv`, every finding
 * the filter matches as CSV (`limit` and `continuationToken` do not apply).
 */
export function driftReportHandler(deps: ApiDeps) {
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    if (services.registry.settings(name) === undefined) return unknownConnector(name);
    const parsed = driftQuery.safeParse(Object.fromEntries(request.query.entries()));
    if (!parsed.success) {
      return problem(400, 'REQUEST_INVALID', 'invalid drift report filter', {
        problems: describeProblems(parsed.error),
      });
    }
    const query: DriftQuery = { connector: name, ...parsed.data };
    if (!wantsCsv(request)) {
      const page = await services.drift.query(query);
      // A finding's version is the store's own: callers see the finding.
      const findings = page.findings.map(({ version: _version, ...finding }) => finding);
      return { status: 200, jsonBody: { connector: name, ...page, findings } };
    }
    const { items, complete } = await readAllPages(
      query,
      500,
      (page) => services.drift.query(page),
      (page) => page.findings,
    );
    return csvAnswer(`drift-${name}.csv`, driftCsv(items), { count: items.length, complete });
  };
}
